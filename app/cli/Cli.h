#pragma once
// Headless verbs: `scalex <verb> [options]`. Exit status 0 on success, 2 on bad input.

namespace scalex::cli {

// True when argv[1] names a verb (or asks for help/version) rather than a GUI option or file.
bool isVerbInvocation(int argc, char** argv);

// Runs the verb with a QCoreApplication (no display needed).
int runVerb(int argc, char** argv);

}  // namespace scalex::cli
