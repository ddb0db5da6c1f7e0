# What `cmake --install` puts beside the program so that a desktop knows it: the desktop entry,
# the MIME type of .scalex projects and its icon, hicolor icons (SVG and PNGs rendered from it),
# AppStream metainfo, the man page and bash completion (both generated from the verbs' --help),
# and the datasets the program ships. Included from packaging/CPackConfig.cmake.
include(GNUInstallDirs)

set(SCALEX_APP_ID "org.scalex.Scalex" CACHE STRING
  "Reverse-DNS id of the application: desktop entry, metainfo and MIME file names")
set(SCALEX_HOMEPAGE_URL "" CACHE STRING "Home page named in the metainfo and the package (none when empty)")
set(SCALEX_SCREENSHOT_BASE_URL "https://scalex.invalid/screenshots" CACHE STRING
  "Where the metainfo's screenshots (resources/screenshots/*.png) are published")
set(SCALEX_MIME_TYPE application/x-scalex-project)
string(REPLACE "/" "-" SCALEX_MIME_ICON ${SCALEX_MIME_TYPE})
set(SCALEX_ICON_SIZES 16 22 24 32 48 64 128 256 512)

set(gen ${PROJECT_BINARY_DIR}/packaging)
set(desktop ${CMAKE_CURRENT_LIST_DIR}/../desktop)
set(icon ${PROJECT_SOURCE_DIR}/resources/icons/scalex.svg)

# The release date is the commit's, so a rebuild of one revision writes the same metainfo.
execute_process(COMMAND git -C ${PROJECT_SOURCE_DIR} log -1 --format=%cs
  OUTPUT_VARIABLE SCALEX_RELEASE_DATE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT SCALEX_RELEASE_DATE MATCHES "^[0-9]+-[0-9]+-[0-9]+$")
  string(TIMESTAMP SCALEX_RELEASE_DATE "%Y-%m-%d" UTC)
endif()
set(SCALEX_METAINFO_URLS "")
if(SCALEX_HOMEPAGE_URL)
  set(SCALEX_METAINFO_URLS "  <url type=\"homepage\">${SCALEX_HOMEPAGE_URL}</url>\n")
endif()
configure_file(${desktop}/scalex.desktop.in ${gen}/${SCALEX_APP_ID}.desktop @ONLY)
configure_file(${desktop}/scalex-mime.xml.in ${gen}/${SCALEX_APP_ID}.xml @ONLY)
configure_file(${desktop}/scalex.metainfo.xml.in ${gen}/${SCALEX_APP_ID}.metainfo.xml @ONLY)

# PNG icons, rendered from the SVG at build time.
add_executable(scalex_render_icon ${CMAKE_CURRENT_LIST_DIR}/../tools/render_icon.cpp)
target_link_libraries(scalex_render_icon PRIVATE Qt6::Gui Qt6::Svg)
set(generated "")
foreach(size IN LISTS SCALEX_ICON_SIZES)
  set(png ${gen}/icons/${size}/scalex.png)
  add_custom_command(OUTPUT ${png}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${gen}/icons/${size}
    COMMAND scalex_render_icon ${icon} ${size} ${png}
    DEPENDS scalex_render_icon ${icon} VERBATIM)
  list(APPEND generated ${png})
  install(FILES ${png} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps)
  install(FILES ${png} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/mimetypes
    RENAME ${SCALEX_MIME_ICON}.png)
endforeach()

# The man page and the bash completion, from the built program's own help.
add_custom_command(OUTPUT ${gen}/scalex.1 ${gen}/scalex.1.gz ${gen}/scalex.bash
  COMMAND ${CMAKE_COMMAND} -DSCALEX=$<TARGET_FILE:scalex> -DMAN_OUT=${gen}/scalex.1
          -DCOMPLETION_OUT=${gen}/scalex.bash -DVERSION=${PROJECT_VERSION}
          -P ${CMAKE_CURRENT_LIST_DIR}/GenerateCliDocs.cmake
  COMMAND gzip -9 -n -k -f ${gen}/scalex.1
  DEPENDS scalex ${CMAKE_CURRENT_LIST_DIR}/GenerateCliDocs.cmake VERBATIM)
list(APPEND generated ${gen}/scalex.1 ${gen}/scalex.1.gz ${gen}/scalex.bash)
add_custom_target(scalex_desktop_files ALL DEPENDS ${generated})

install(FILES ${gen}/${SCALEX_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${gen}/${SCALEX_APP_ID}.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages)
install(FILES ${gen}/${SCALEX_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${icon} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${icon} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/mimetypes
  RENAME ${SCALEX_MIME_ICON}.svg)
install(FILES ${gen}/scalex.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${gen}/scalex.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  RENAME scalex)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/datasets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/scalex/datasets)
install(FILES ${PROJECT_SOURCE_DIR}/resources/example/example.scalex
  DESTINATION ${CMAKE_INSTALL_DATADIR}/scalex/examples)
