#!/usr/bin/env bash
# Installs the build into a scratch prefix and checks what a desktop and a shell read from it:
# the program and its --version, the desktop entry (desktop-file-validate), the MIME type
# (update-mime-database), the icons at their sizes, the AppStream metainfo (appstreamcli), the
# man page (every verb, sub-verb and option of the program's --help) and the bash completion.
#   install_test.sh BUILD_DIR SOURCE_DIR SCRATCH_PREFIX VERSION
set -uo pipefail
build="$1" source="$2" prefix="$3" version="$4"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
need() { command -v "$1" >/dev/null || { echo "FAIL: $1 not found (bash packaging/install-deps.sh installs it)"; exit 1; }; }
need desktop-file-validate
need appstreamcli
need update-mime-database

rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
share="$prefix/share"
# The application id names the desktop entry, the metainfo and the MIME file (SCALEX_APP_ID).
desktops=("$share"/applications/*.desktop)
[ ${#desktops[@]} -eq 1 ] && [ -f "${desktops[0]}" ] || { echo "FAIL: expected one desktop entry, found: ${desktops[*]}"; exit 1; }
app_id="$(basename "${desktops[0]}" .desktop)"

# --- the files ---------------------------------------------------------------------------------
expected=(
  bin/scalex
  "share/applications/$app_id.desktop"
  "share/mime/packages/$app_id.xml"
  "share/metainfo/$app_id.metainfo.xml"
  share/icons/hicolor/scalable/apps/scalex.svg
  share/icons/hicolor/scalable/mimetypes/application-x-scalex-project.svg
  share/man/man1/scalex.1.gz
  share/bash-completion/completions/scalex
  share/scalex/datasets/example/generated-isoflop.csv
  share/scalex/examples/example.scalex
)
for size in 16 22 24 32 48 64 128 256 512; do
  expected+=("share/icons/hicolor/${size}x${size}/apps/scalex.png"
             "share/icons/hicolor/${size}x${size}/mimetypes/application-x-scalex-project.png")
done
for f in "${expected[@]}"; do [ -s "$prefix/$f" ] || fail "not installed: $f"; done

# PNG width and height are the big-endian words at bytes 16 and 20.
for size in 16 48 512; do
  png="$share/icons/hicolor/${size}x${size}/apps/scalex.png"
  [ -s "$png" ] || continue
  dims="$(od -An -tu1 -j16 -N8 "$png" | awk '{print $3*256+$4 "x" $7*256+$8}')"
  [ "$dims" = "${size}x${size}" ] || fail "$png is $dims, not ${size}x${size}"
done

# --- the program -------------------------------------------------------------------------------
# It prints the revision the build recorded (app/generated/ScalexRevision.h), which in a git
# checkout is one of its commits.
out="$("$prefix/bin/scalex" --version)" || fail "scalex --version exited $?"
recorded="$(sed -n 's/^#define SCALEX_SOURCE_REVISION "\(.*\)"$/\1/p' "$build/app/generated/ScalexRevision.h")"
[ "$out" = "scalex $version (revision $recorded)" ] || fail "--version printed '$out', expected version $version, revision $recorded"
explicit="${SCALEX_SOURCE_REVISION:-}$(sed -n 's/^SCALEX_SOURCE_REVISION:STRING=//p' "$build/CMakeCache.txt")"
if git -C "$source" rev-parse --git-dir >/dev/null 2>&1 && [ -z "$explicit" ]; then
  git -C "$source" cat-file -e "${recorded%-modified}^{commit}" 2>/dev/null ||
    fail "the recorded revision '$recorded' is not a commit of the checkout"
fi

# --- desktop entry -----------------------------------------------------------------------------
desktop="$share/applications/$app_id.desktop"
desktop-file-validate "$desktop" || fail "desktop-file-validate $desktop"
grep -qx 'Exec=scalex %f' "$desktop" || fail "the desktop entry does not open the file given to it"
grep -Eq '^Categories=.*Science;.*Education;.*DataVisualization;' "$desktop" || fail "desktop categories"
grep -Eq '^MimeType=application/x-scalex-project;' "$desktop" || fail "the desktop entry does not open projects"

# --- MIME type: a MIME database built from the XML knows *.scalex and the project magic -------
mime="$prefix/mime-check/mime"
mkdir -p "$mime/packages" && cp "$share/mime/packages/$app_id.xml" "$mime/packages/"
warnings="$(XDG_DATA_DIRS="$prefix/mime-check" update-mime-database "$mime" 2>&1)" || fail "update-mime-database failed"
[ -z "$warnings" ] || fail "update-mime-database on $app_id.xml: $warnings"
grep -q '^50:application/x-scalex-project:\*\.scalex$' "$mime/globs2" || fail "globs2 has no *.scalex"
grep -q 'manifest.json' "$mime/magic" || fail "the MIME magic does not look for manifest.json"
[ -s "$mime/application/x-scalex-project.xml" ] || fail "update-mime-database wrote no application/x-scalex-project"
if command -v gio >/dev/null && [ -f /usr/share/mime/packages/freedesktop.org.xml ]; then
  # The example project is a project by its name and, renamed without one, by its content.
  cp /usr/share/mime/packages/freedesktop.org.xml "$mime/packages/"
  XDG_DATA_DIRS="$prefix/mime-check" update-mime-database "$mime" >/dev/null 2>&1
  cp "$share/scalex/examples/example.scalex" "$prefix/mime-check/project"
  for f in "$share/scalex/examples/example.scalex" "$prefix/mime-check/project"; do
    type="$(XDG_DATA_DIRS="$prefix/mime-check" XDG_DATA_HOME="$prefix/mime-check/none" \
      gio info -a standard::content-type "$f" | sed -n 's/.*standard::content-type: //p')"
    [ "$type" = application/x-scalex-project ] || fail "$f is $type, not application/x-scalex-project"
  done
fi

# --- AppStream ---------------------------------------------------------------------------------
metainfo="$share/metainfo/$app_id.metainfo.xml"
appstreamcli validate --no-net "$metainfo" || fail "appstreamcli validate $metainfo"
grep -q "<launchable type=\"desktop-id\">$app_id.desktop</launchable>" "$metainfo" || fail "metainfo launchable"
[ "$(grep -c '<screenshot' "$metainfo")" -ge 2 ] || fail "metainfo has no screenshots"

# --- man page: every verb, sub-verb and option the program's help names -----------------------
man="$(gzip -dc "$share/man/man1/scalex.1.gz")" || fail "man page is not gzip"
grep -q '^\.TH SCALEX 1 ' <<<"$man" || fail "man page has no .TH"
verbs="$("$prefix/bin/scalex" help | awk '/^Verbs:/{on=1; next} on && /^  [a-z]/{print $1}')"
[ -n "$verbs" ] || fail "scalex help lists no verbs"
roff_option() { sed 's/-/\\-/g' <<<"$1"; }
check_options() {  # the long options of `scalex $* --help` are in the page
  local opt
  for opt in $("$prefix/bin/scalex" "$@" --help | grep -oE '^ +(-[a-z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'); do
    grep -qF "$(roff_option "$opt")" <<<"$man" || fail "man page lacks $opt of 'scalex $*'"
  done
}
for verb in $verbs; do
  grep -qx ".SS \"$verb\"" <<<"$man" || fail "man page lacks the verb $verb"
  subs="$("$prefix/bin/scalex" "$verb" --help | sed -nE '1s/^Usage: scalex [a-z-]+ <([a-z|-]+)>.*/\1/p' | tr '|' ' ')"
  if [ -n "$subs" ]; then
    for sub in $subs; do
      grep -qx ".SS \"$verb $sub\"" <<<"$man" || fail "man page lacks $verb $sub"
      check_options "$verb" "$sub"
    done
  else
    check_options "$verb"
  fi
done
if command -v groff >/dev/null; then
  warnings="$(groff -man -Tutf8 -ww -z <<<"$man" 2>&1)"
  [ -z "$warnings" ] || fail "groff warns: $warnings"
fi

# --- bash completion ---------------------------------------------------------------------------
completion="$share/bash-completion/completions/scalex"
bash -n "$completion" || fail "bash completion does not parse"
complete_words() {  # prints what completing the words "$@" (the last is being typed) offers
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _scalex; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$completion" "$@"
}
offers() {  # offers WORD TYPED...: completing TYPED offers WORD
  local want="$1" offered
  shift
  offered="$(complete_words "$@")"
  grep -qxF -- "$want" <<<"$offered" || fail "completion: '$*' does not offer $want (offered: $(echo $offered))"
}
offers fit scalex fi
offers isoflop scalex fit is
offers --data scalex fit lnd --da
offers --d-model scalex account --d-m
offers --screenshot scalex --scr
offers max-model scalex predict ""

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "installed tree in $prefix: every check passed"
