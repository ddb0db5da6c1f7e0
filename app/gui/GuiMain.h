#pragma once

namespace scalex::gui {

// Starts the explorer window. Options: a project file to open, --example, --screenshot OUT.png
// (render the window offscreen to a PNG and exit), --size WxH.
int runGui(int argc, char** argv);

}  // namespace scalex::gui
