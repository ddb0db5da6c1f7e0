// scalex: with no arguments (or only GUI options) the explorer window; `scalex <verb> ...`
// runs a headless verb that never needs a display.
#include "app/cli/Cli.h"
#include "app/gui/GuiMain.h"

int main(int argc, char** argv) {
    if (scalex::cli::isVerbInvocation(argc, argv)) return scalex::cli::runVerb(argc, argv);
    return scalex::gui::runGui(argc, argv);
}
