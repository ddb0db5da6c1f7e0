# Checks that the verbs, the figures and the window reach core/fit and core/inference only through core/analysis
# (DESIGN.md "Dependency direction", "Layers are libraries"). Static libraries pass their link
# dependencies on, so a call from app/cli or app/gui into core/fit would still link; this check
# is what fails instead. Run with cmake -P after each of the two archives is built (app/CMakeLists.txt)
# and as the ctests layers.app_symbols and layers.app_includes (tests/CMakeLists.txt).
#
#   MODE=symbols   NM=<nm> ARCHIVES=<a.a>[,<b.a>] PREFIXES=<app/cli>[,<app/gui>] [REMOVE_ON_FAILURE=ON]
#       fails when an object of an archive refers to a function or object defined in namespace
#       scalex::fit or scalex::inference (`nm -C --undefined-only`). Naming their plain value types
#       is fine (it leaves no symbol); calling into them is not. With REMOVE_ON_FAILURE the archive
#       is deleted so that the next build checks it again.
#   MODE=includes  SOURCE_DIR=<repository root> DIRS=<app/cli>[,<app/gui>] [REMOVE_ON_FAILURE=ON ARCHIVES=...]
#       fails when a file under DIRS includes "core/fit/..." or "core/inference/..."; the value
#       types app code names come through core/analysis headers (core/analysis/FitTypes.h,
#       core/analysis/RuntimeAnalysis.h).
cmake_minimum_required(VERSION 3.25)

set(rule "app/cli, app/gui, app/figures and app/python reach core/fit and core/inference only through core/analysis (DESIGN.md \"Dependency direction\")")
# Methods of the plain value types app code draws (a law's value at a point, the surface's loss,
# an interval looked up by name, the size of a grid): reading a result, not fitting one.
set(valueTypeMethods "^scalex::fit::(PowerLaw::operator\\(\\)|LossSurfaceParams::(loss|logLoss)\\(|BootstrapResult::find\\(|InitGrid::size\\()")

if(MODE STREQUAL "symbols")
  string(REPLACE "," ";" archives "${ARCHIVES}")
  string(REPLACE "," ";" prefixes "${PREFIXES}")
  set(found "")
  foreach(archive prefix IN ZIP_LISTS archives prefixes)
    execute_process(COMMAND ${NM} -C --undefined-only ${archive}
      OUTPUT_VARIABLE listing ERROR_VARIABLE nmError RESULT_VARIABLE failed)
    if(failed)
      message(FATAL_ERROR "layer check: ${NM} -C --undefined-only ${archive} failed: ${nmError}")
    endif()
    # `nm` lists each member as "Member.cpp.o:" followed by its undefined symbols ("U name").
    string(REPLACE ";" "\\;" listing "${listing}")
    string(REPLACE "\n" ";" lines "${listing}")
    set(member "")
    list(LENGTH found before)
    foreach(line IN LISTS lines)
      if(line MATCHES "^(.+\\.o):$")
        string(REGEX REPLACE "\\.o$" "" member "${CMAKE_MATCH_1}")
      elseif(line MATCHES "^ *U (scalex::(fit|inference)::.*)$")
        set(symbol "${CMAKE_MATCH_1}")
        if(NOT symbol MATCHES "${valueTypeMethods}")
          list(APPEND found "  ${prefix}/${member}: ${symbol}")
        endif()
      endif()
    endforeach()
    list(LENGTH found after)
    if(after GREATER before AND REMOVE_ON_FAILURE)
      file(REMOVE ${archive})
    endif()
  endforeach()
  if(found)
    list(REMOVE_DUPLICATES found)
    list(SORT found)
    string(REPLACE ";" "\n" found "${found}")
    message(FATAL_ERROR "layer check: ${rule}, but these calls go to core/fit or core/inference directly:\n"
      "${found}\nCall the analysis in core/analysis that does it (or add one there).")
  endif()
elseif(MODE STREQUAL "includes")
  string(REPLACE "," ";" dirs "${DIRS}")
  set(found "")
  foreach(dir IN LISTS dirs)
    file(GLOB_RECURSE files "${SOURCE_DIR}/${dir}/*.h" "${SOURCE_DIR}/${dir}/*.cpp")
    foreach(file IN LISTS files)
      file(STRINGS ${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]core/(fit|inference)/")
      file(RELATIVE_PATH name ${SOURCE_DIR} ${file})
      foreach(include IN LISTS includes)
        string(STRIP "${include}" include)
        list(APPEND found "  ${name}: ${include}")
      endforeach()
    endforeach()
  endforeach()
  if(found)
    if(REMOVE_ON_FAILURE)
      string(REPLACE "," ";" archives "${ARCHIVES}")
      file(REMOVE ${archives})
    endif()
    list(SORT found)
    string(REPLACE ";" "\n" found "${found}")
    message(FATAL_ERROR "layer check: ${rule}, but these files include core/fit or core/inference headers:\n"
      "${found}\nInclude the core/analysis header that brings the type (core/analysis/FitTypes.h, "
      "core/analysis/RuntimeAnalysis.h).")
  endif()
else()
  message(FATAL_ERROR "layer check: MODE must be symbols or includes, got '${MODE}'")
endif()
