# Install rules and CPack configuration for Agent Loop.
#
# Include from the top-level CMakeLists.txt *after* the targets are defined
# (after add_subdirectory(src/...)):
#
#     include(cmake/Packaging.cmake)
#
# Targets: agentloop-cli (always), agentloop (only with AGENTLOOP_BUILD_GUI).
# Every repository file is found relative to this file, so it also works when
# included from another project (see packaging/README.md).
#
#   Linux:   cpack -G DEB         -> agentloop_<version>_<arch>.deb
#   Windows: packaging/windows/build.sh (cross-built on Debian) deploys the
#            installed tree and makes the NSIS installer and the zip.
#
# On Windows this file also attaches the version/icon resource and the
# application manifest to the agentloop target.

include_guard(GLOBAL)
include(GNUInstallDirs)

get_filename_component(AGENTLOOP_PACKAGING_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(_al_icons_dir "${AGENTLOOP_PACKAGING_ROOT}/resources/icons")
set(_al_windows_dir "${AGENTLOOP_PACKAGING_ROOT}/resources/windows")
set(_al_linux_dir "${AGENTLOOP_PACKAGING_ROOT}/packaging/linux")

if(NOT TARGET agentloop-cli)
    message(FATAL_ERROR
        "Packaging.cmake: target agentloop-cli does not exist yet; include this file "
        "after the add_subdirectory() calls that define the executables.")
endif()

# ---------------------------------------------------------------------------
# Windows: icon + VERSIONINFO + manifest for agentloop.exe
# ---------------------------------------------------------------------------
if(WIN32 AND TARGET agentloop)
    function(_agentloop_add_windows_resources)
        set(AGENTLOOP_ICO_PATH "${_al_icons_dir}/agentloop.ico")
        set(AGENTLOOP_MANIFEST_PATH "${_al_windows_dir}/agentloop.manifest")
        # Honours SOURCE_DATE_EPOCH, so reproducible builds stay reproducible.
        string(TIMESTAMP AGENTLOOP_COPYRIGHT_YEAR "%Y" UTC)
        # VERSIONINFO needs four numbers; fill the ones project(VERSION) left out.
        foreach(_part MAJOR MINOR PATCH)
            if("${PROJECT_VERSION_${_part}}" STREQUAL "")
                set(PROJECT_VERSION_${_part} 0)
            endif()
        endforeach()
        if(MSVC)
            # The MSVC linker writes its own manifest (resource #1, with the
            # asInvoker trustInfo); CMake merges a listed .manifest into it.
            set(AGENTLOOP_RC_EMBED_MANIFEST OFF)
            target_sources(agentloop PRIVATE "${AGENTLOOP_MANIFEST_PATH}")
        else()
            # MinGW: CMake does not handle .manifest sources; embed it via the .rc.
            set(AGENTLOOP_RC_EMBED_MANIFEST ON)
        endif()
        set(_rc "${CMAKE_BINARY_DIR}/agentloop_resources/agentloop.rc")
        configure_file("${_al_windows_dir}/agentloop.rc.in" "${_rc}" @ONLY)
        target_sources(agentloop PRIVATE "${_rc}")
        # configure_file() only tracks the template; rebuild the .res when the
        # icon or the manifest change.
        set_property(SOURCE "${_rc}" TARGET_DIRECTORY agentloop APPEND PROPERTY
            OBJECT_DEPENDS "${AGENTLOOP_ICO_PATH}" "${AGENTLOOP_MANIFEST_PATH}")
    endfunction()
    _agentloop_add_windows_resources()
endif()

# ---------------------------------------------------------------------------
# Install rules
# ---------------------------------------------------------------------------
install(TARGETS agentloop-cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
if(TARGET agentloop)
    install(TARGETS agentloop
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
        BUNDLE DESTINATION .)
endif()

if(UNIX AND NOT APPLE AND TARGET agentloop)
    install(FILES "${_al_linux_dir}/agentloop.desktop"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")
    foreach(_size IN ITEMS 16 24 32 48 64 128 256 512)
        install(FILES "${_al_icons_dir}/agentloop-${_size}.png"
            DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/${_size}x${_size}/apps"
            RENAME agentloop.png)
    endforeach()
    install(FILES "${_al_icons_dir}/agentloop.svg"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps")
    install(FILES "${_al_linux_dir}/agentloop.metainfo.xml"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo")
endif()
if(UNIX AND NOT APPLE AND EXISTS "${AGENTLOOP_PACKAGING_ROOT}/LICENSE")
    install(FILES "${AGENTLOOP_PACKAGING_ROOT}/LICENSE"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/agentloop" RENAME copyright)
endif()

# ---------------------------------------------------------------------------
# CPack
# ---------------------------------------------------------------------------
set(CPACK_VERBATIM_VARIABLES ON)
set(CPACK_PACKAGE_NAME "agentloop")
set(CPACK_PACKAGE_VENDOR "Agent Loop")
set(CPACK_PACKAGE_CONTACT "Agent Loop developers")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# Package synopsis: PROJECT_DESCRIPTION without a leading article (Debian style).
string(REGEX REPLACE "^(A|An|The) +" "" _al_summary "${PROJECT_DESCRIPTION}")
string(SUBSTRING "${_al_summary}" 0 1 _al_first)
string(SUBSTRING "${_al_summary}" 1 -1 _al_rest)
string(TOUPPER "${_al_first}" _al_first)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${_al_first}${_al_rest}")
# Long description; lines stay under 80 columns for the Debian control file.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "Agent Loop sends a task to an OpenAI-compatible chat model and runs the\n"
    "shell commands the model asks for, each only after the user approves it.\n"
    "Every request and response is shown as JSON.\n"
    "\n")
if(TARGET agentloop)
    string(APPEND CPACK_PACKAGE_DESCRIPTION
        "This package contains the desktop app (agentloop) and the command-line\n"
        "front end (agentloop-cli).")
else()
    string(APPEND CPACK_PACKAGE_DESCRIPTION
        "This package contains the command-line front end (agentloop-cli).")
endif()
if(PROJECT_HOMEPAGE_URL)
    set(CPACK_PACKAGE_HOMEPAGE_URL "${PROJECT_HOMEPAGE_URL}")
endif()
set(CPACK_PACKAGE_INSTALL_DIRECTORY "Agent Loop")
# Version-independent, so "uninstall before install" finds older versions.
set(CPACK_PACKAGE_INSTALL_REGISTRY_KEY "Agent Loop")
if(TARGET agentloop)
    set(CPACK_PACKAGE_EXECUTABLES "agentloop" "Agent Loop")
endif()
if(EXISTS "${AGENTLOOP_PACKAGING_ROOT}/LICENSE")
    set(CPACK_RESOURCE_FILE_LICENSE "${AGENTLOOP_PACKAGING_ROOT}/LICENSE")
endif()
# Release builds carry no debug info, but drop the symbol tables as well
# (no-op where CMAKE_STRIP is not set, e.g. MSVC).
set(CPACK_STRIP_FILES ON)

set(CPACK_SOURCE_GENERATOR "TGZ")
set(CPACK_SOURCE_IGNORE_FILES "/\\.git/" "/build/" "/\\.cache/" "\\.user$")

set(CPACK_GENERATOR "DEB")

# --- DEB ---
set(CPACK_DEBIAN_PACKAGE_NAME "agentloop")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(AGENTLOOP_PACKAGE_MAINTAINER "Agent Loop developers" CACHE STRING
    "Maintainer field of the .deb; Debian expects \"Name <email>\"")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${AGENTLOOP_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(TARGET agentloop)
    # Native Wayland support; without it Qt falls back to X11/XWayland.
    set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-wayland")
endif()

include(CPack)
