# Writes the man page scalex.1 and the bash completion of `scalex` from the program's own help:
# `scalex help` (the verbs), `scalex <verb> --help` (their options; a verb whose usage line reads
# `<a|b|c>` has sub-verbs, each with its own --help) and the window's `--help`. Run at build time:
#   cmake -DSCALEX=build/app/scalex -DMAN_OUT=scalex.1 -DCOMPLETION_OUT=scalex.bash
#         -DVERSION=0.1.0 -P GenerateCliDocs.cmake
# The date in the man page is SOURCE_DATE_EPOCH's when set, so packages build reproducibly.

cmake_minimum_required(VERSION 3.25)
set(ENV{QT_QPA_PLATFORM} offscreen)

function(run_help out)
  execute_process(COMMAND ${SCALEX} ${ARGN} OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR text STREQUAL "")
    message(FATAL_ERROR "`scalex ${ARGN}` failed (${rc}): ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Text to a CMake list of lines; ';' '[' ']' would split or group list items, so they travel
# as placeholders until a line is written.
function(to_lines out text)
  string(REPLACE ";" "<SEMI>" text "${text}")
  string(REPLACE "[" "<LSQ>" text "${text}")
  string(REPLACE "]" "<RSQ>" text "${text}")
  string(REGEX REPLACE "\n+$" "" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

function(plain out line)
  string(REPLACE "<SEMI>" ";" line "${line}")
  string(REPLACE "<LSQ>" "[" line "${line}")
  string(REPLACE "<RSQ>" "]" line "${line}")
  set(${out} "${line}" PARENT_SCOPE)
endfunction()

# One line of text as roff: backslashes and hyphens escaped, no request at the start of a line.
function(roff out line)
  plain(line "${line}")
  string(REPLACE "\\" "\\e" line "${line}")
  string(REPLACE "-" "\\-" line "${line}")
  if(line MATCHES "^[.']")
    set(line "\\&${line}")
  endif()
  set(${out} "${line}" PARENT_SCOPE)
endfunction()

# The help of one verb as man page text (description paragraphs, then one .TP per option) and,
# in the caller's <prefix>_OPTIONS and <prefix>_VALUE_OPTIONS, the options for the completion.
# `command` replaces the program's path in the usage line ("Usage: build/app/scalex [options]").
function(help_to_roff out prefix command text)
  to_lines(lines "${text}")
  set(man "")
  set(options "")
  set(value_options "")
  set(in_list FALSE)
  foreach(line IN LISTS lines)
    if(line MATCHES "^Usage: scalex (.*)$")
      roff(usage "scalex ${CMAKE_MATCH_1}")
      string(APPEND man ".PP\n.B ${usage}\n.PP\n")
    elseif(line MATCHES "^Usage: [^ ]+(.*)$")
      roff(usage "${command}${CMAKE_MATCH_1}")
      string(APPEND man ".PP\n.B ${usage}\n.PP\n")
    elseif(line MATCHES "^(Options|Arguments):$")
      set(in_list TRUE)
      string(APPEND man ".PP\n${CMAKE_MATCH_1}:\n")
    elseif(line STREQUAL "")
      set(in_list FALSE)
      string(APPEND man ".PP\n")
    elseif(line MATCHES "^  ([^ ].*)$" AND (in_list OR line MATCHES "^  [^ ]+  "))
      # "  --name <value>   Description" (or a sub-verb and what it does): the name ends at the
      # first run of two spaces.
      set(in_list TRUE)
      set(entry "${CMAKE_MATCH_1}")
      string(FIND "${entry}" "  " gap)
      if(gap EQUAL -1)
        set(name "${entry}")
        set(description "")
      else()
        string(SUBSTRING "${entry}" 0 ${gap} name)
        string(SUBSTRING "${entry}" ${gap} -1 description)
        string(STRIP "${description}" description)
      endif()
      roff(rname "${name}")
      roff(rdescription "${description}")
      string(APPEND man ".TP\n.B ${rname}\n${rdescription}\n")
      string(REGEX MATCHALL "--[a-z0-9][a-z0-9-]*" longs "${name}")
      list(APPEND options ${longs})
      if(name MATCHES "<")
        list(APPEND value_options ${longs})
      endif()
    elseif(in_list AND line MATCHES "^ +([^ ].*)$")
      roff(more "${CMAKE_MATCH_1}")  # a wrapped description goes on
      string(APPEND man "${more}\n")
    else()
      if(in_list)
        set(in_list FALSE)
        string(APPEND man ".PP\n")
      endif()
      string(STRIP "${line}" line)
      roff(text_line "${line}")
      string(APPEND man "${text_line}\n")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES options)
  set(${out} "${man}" PARENT_SCOPE)
  set(${prefix}_OPTIONS "${options}" PARENT_SCOPE)
  set(${prefix}_VALUE_OPTIONS "${value_options}" PARENT_SCOPE)
endfunction()

# --- the verbs, from `scalex help` -------------------------------------------------------------
run_help(overview help)
to_lines(overview_lines "${overview}")
set(verbs "")
set(in_verbs FALSE)
foreach(line IN LISTS overview_lines)
  if(line STREQUAL "Verbs:")
    set(in_verbs TRUE)
  elseif(in_verbs AND line MATCHES "^  ([a-z][a-z-]*) +(.*)$")
    list(APPEND verbs ${CMAKE_MATCH_1})
    set(summary_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
  endif()
endforeach()
if(NOT verbs)
  message(FATAL_ERROR "`scalex help` listed no verbs:\n${overview}")
endif()

if(DEFINED ENV{SOURCE_DATE_EPOCH})
  string(TIMESTAMP date "%Y-%m-%d" UTC)
else()
  string(TIMESTAMP date "%Y-%m-%d")
endif()

set(man ".\\\" Generated at build time from the --help of scalex ${VERSION}; edit the program, not this file.\n")
string(APPEND man ".TH SCALEX 1 \"${date}\" \"Scalex ${VERSION}\" \"User Commands\"\n")
string(APPEND man ".SH NAME\nscalex \\- explorer for neural scaling laws\n")
string(APPEND man ".SH SYNOPSIS\n.B scalex\n.RI [ options ]\n.RI [ project ]\n.br\n.B scalex\n.I verb\n.RI [ options ]\n.br\n.B scalex help\n|\n.B \\-\\-version\n")
string(APPEND man ".SH DESCRIPTION\n")
to_lines(intro "${overview}")
list(GET intro 0 first)
roff(first "${first}")
string(APPEND man "${first}\n.PP\n")
string(APPEND man "With no verb, \\fBscalex\\fR opens the explorer window on a project or run table, \
the last session or the built-in example project. \
With a verb it runs headless and never needs a display. \
Bad input gets a one-line error naming the file, line and column or the option, and exit status 2.\n")

# The window's options, from its own --help (any option that is not a verb starts the window).
run_help(window_help --example --help)
help_to_roff(window_man WINDOW "scalex" "${window_help}")
string(APPEND man ".SH WINDOW OPTIONS\n${window_man}")

string(APPEND man ".SH VERBS\n")
set(keys "")
foreach(verb IN LISTS verbs)
  roff(summary "${summary_${verb}}")
  string(APPEND man ".SS \"${verb}\"\n${summary}\n")
  run_help(verb_help ${verb} --help)
  # A usage line "scalex fit <lnd|isoflop|...>" names sub-verbs, each with its own options.
  set(subs "")
  if(verb_help MATCHES "^Usage: scalex ${verb} <([a-z|-]+)>")
    string(REPLACE "|" ";" subs "${CMAKE_MATCH_1}")
  endif()
  string(MAKE_C_IDENTIFIER "${verb}" id)
  help_to_roff(verb_man V_${id} "scalex ${verb}" "${verb_help}")
  string(APPEND man "${verb_man}")
  list(APPEND keys "${verb}")
  set(subs_${verb} "${subs}")
  foreach(sub IN LISTS subs)
    run_help(sub_help ${verb} ${sub} --help)
    string(MAKE_C_IDENTIFIER "${verb}_${sub}" sid)
    help_to_roff(sub_man V_${sid} "scalex ${verb} ${sub}" "${sub_help}")
    string(APPEND man ".SS \"${verb} ${sub}\"\n${sub_man}")
    list(APPEND keys "${verb} ${sub}")
  endforeach()
endforeach()

string(APPEND man ".SH EXIT STATUS\n.TP\n.B 0\nsuccess\n.TP\n.B 1\nthe input was read but nothing in it is usable (\\fBcheck\\fR)\n.TP\n.B 2\nbad input or options; the message names the file, line and column or the option\n")
string(APPEND man ".SH FILES\n.TP\n.I /usr/share/scalex/datasets\nthe paper's tables, the generated example runs and the Gemstones study (MIT licence) the program ships\n.TP\n.I ~/.config/Scalex/scalex.conf\nthe window's layout, theme and last project\n")
string(APPEND man ".SH SEE ALSO\n\\fBscalex help\\fR and \\fBscalex\\fR \\fIverb\\fR \\fB\\-\\-help\\fR print the same text.\n")
file(WRITE ${MAN_OUT} "${man}")

# --- bash completion ---------------------------------------------------------------------------
string(REPLACE ";" " " verb_words "${verbs}")
string(REPLACE ";" " " window_words "${WINDOW_OPTIONS}")
set(cases "")
set(value_cases "")
set(sub_cases "")
foreach(key IN LISTS keys)
  string(MAKE_C_IDENTIFIER "${key}" id)
  string(REPLACE ";" " " words "${V_${id}_OPTIONS}")
  string(REPLACE ";" " " value_words "${V_${id}_VALUE_OPTIONS}")
  string(APPEND cases "    \"${key}\") echo \"${words}\" ;;\n")
  string(APPEND value_cases "    \"${key}\") echo \"${value_words}\" ;;\n")
endforeach()
foreach(verb IN LISTS verbs)
  if(subs_${verb})
    string(REPLACE ";" " " sub_words "${subs_${verb}}")
    string(APPEND sub_cases "    ${verb}) echo \"${sub_words}\" ;;\n")
  endif()
endforeach()
string(REPLACE ";" " " window_value_words "${WINDOW_VALUE_OPTIONS}")

file(WRITE ${COMPLETION_OUT} "# bash completion for scalex ${VERSION}, generated at build time from its --help.

_scalex_subverbs() {
  case \"$1\" in
${sub_cases}  esac
}

_scalex_options() {
  case \"$1\" in
${cases}  esac
}

_scalex_value_options() {
  case \"$1\" in
${value_cases}  esac
}

_scalex_files() {
  if declare -F _filedir >/dev/null; then _filedir \"$@\"; else COMPREPLY+=($(compgen -f -- \"$cur\")); fi
}

_scalex() {
  local cur=\"\${COMP_WORDS[COMP_CWORD]}\" prev=\"\${COMP_WORDS[COMP_CWORD-1]}\"
  COMPREPLY=()
  local verbs=\"${verb_words} help\"
  local window_options=\"${window_words}\"
  local window_value_options=\"${window_value_words}\"
  if [[ $COMP_CWORD -eq 1 ]]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W \"$window_options --version\" -- \"$cur\"))
    else
      COMPREPLY=($(compgen -W \"$verbs\" -- \"$cur\"))
      _scalex_files 'scalex|csv|tsv|json|jsonl|gz'
    fi
    return
  fi
  local verb=\"\${COMP_WORDS[1]}\" key
  if [[ \" $verbs \" != *\" $verb \"* ]]; then
    # The window: its options, a value after one that takes it, or a project.
    if [[ \" $window_value_options \" == *\" $prev \"* ]]; then _scalex_files; return; fi
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$window_options\" -- \"$cur\")); return; fi
    _scalex_files 'scalex|csv|tsv|json|jsonl|gz'
    return
  fi
  key=\"$verb\"
  local subs
  subs=\"$(_scalex_subverbs \"$verb\")\"
  if [[ -n $subs ]]; then
    if [[ $COMP_CWORD -eq 2 ]]; then
      COMPREPLY=($(compgen -W \"$subs --help\" -- \"$cur\"))
      return
    fi
    key=\"$verb \${COMP_WORDS[2]}\"
  fi
  if [[ \" $(_scalex_value_options \"$key\") \" == *\" $prev \"* ]]; then
    _scalex_files
    return
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W \"$(_scalex_options \"$key\")\" -- \"$cur\"))
    return
  fi
  _scalex_files
}

complete -F _scalex scalex
")
