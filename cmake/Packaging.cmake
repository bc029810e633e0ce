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
#   Windows: cpack -G NSIS        -> "Agent Loop Setup <version>.exe"
#            cpack -G ZIP         -> agentloop-<version>-win64.zip
#
# On Windows this file also attaches the version/icon resource and the
# application manifest to the agentloop target and runs windeployqt at
# install time, so the installed tree (and therefore every package) is
# self-contained.

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

if(WIN32)
    # MSVC runtime DLLs (msvcp140.dll, vcruntime140*.dll) next to the
    # executables; the UCRT is part of Windows 10/11.
    if(MSVC)
        set(CMAKE_INSTALL_SYSTEM_RUNTIME_DESTINATION "${CMAKE_INSTALL_BINDIR}")
        set(CMAKE_INSTALL_UCRT_LIBRARIES FALSE)
        include(InstallRequiredSystemLibraries)
    endif()

    option(AGENTLOOP_DEPLOY_QT "Run windeployqt on the installed executables" ON)
    if(AGENTLOOP_DEPLOY_QT)
        # windeployqt lives in Qt's bin directory, next to qmake.
        set(_al_qt_bin_dirs "")
        foreach(_tool IN ITEMS Qt6::windeployqt Qt6::qmake)
            if(NOT TARGET ${_tool})
                continue()
            endif()
            set(_props IMPORTED_LOCATION)
            get_target_property(_configs ${_tool} IMPORTED_CONFIGURATIONS)
            if(_configs)
                foreach(_config IN LISTS _configs)
                    list(APPEND _props IMPORTED_LOCATION_${_config})
                endforeach()
            endif()
            foreach(_prop IN LISTS _props)
                get_target_property(_location ${_tool} ${_prop})
                if(_location)
                    get_filename_component(_dir "${_location}" DIRECTORY)
                    list(APPEND _al_qt_bin_dirs "${_dir}")
                endif()
            endforeach()
        endforeach()
        if(QT6_INSTALL_PREFIX AND QT6_INSTALL_BINS)
            list(APPEND _al_qt_bin_dirs "${QT6_INSTALL_PREFIX}/${QT6_INSTALL_BINS}")
        endif()
        find_program(AGENTLOOP_WINDEPLOYQT windeployqt
            HINTS ${_al_qt_bin_dirs}
            DOC "windeployqt used to copy the Qt runtime into the install tree")

        if(NOT AGENTLOOP_WINDEPLOYQT)
            message(WARNING "windeployqt not found: installing/packaging will fail. "
                "Set AGENTLOOP_WINDEPLOYQT, or AGENTLOOP_DEPLOY_QT=OFF to skip deployment.")
            install(CODE "message(FATAL_ERROR \"windeployqt was not found at configure time \"
                \"(AGENTLOOP_WINDEPLOYQT); the installed tree would lack the Qt runtime.\")")
        else()
            message(STATUS "windeployqt: ${AGENTLOOP_WINDEPLOYQT}")
            set(_al_deploy_flags --translations zh_CN --no-system-d3d-compiler --no-opengl-sw)
            if(MSVC)
                # Runtime DLLs come from InstallRequiredSystemLibraries instead of
                # vc_redist.x64.exe (which windeployqt copies from a VS prompt).
                list(APPEND _al_deploy_flags --no-compiler-runtime)
            else()
                # libgcc_s_seh-1.dll, libstdc++-6.dll, libwinpthread-1.dll
                list(APPEND _al_deploy_flags --compiler-runtime)
            endif()
            # Deploy for both executables in one run: the CLI needs Qt Core and
            # Network (plus the TLS plugins) even in a build without the GUI.
            set(_al_deploy_files "")
            foreach(_target IN ITEMS agentloop agentloop-cli)
                if(TARGET ${_target})
                    string(APPEND _al_deploy_files
                        " \"\${_al_bindir}/$<TARGET_FILE_NAME:${_target}>\"")
                endif()
            endforeach()
            string(REPLACE ";" " " _al_deploy_flags_str "${_al_deploy_flags}")
            install(CODE "
set(_al_bindir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
message(STATUS \"Running windeployqt in \${_al_bindir}\")
execute_process(
    COMMAND \"${AGENTLOOP_WINDEPLOYQT}\" ${_al_deploy_flags_str} ${_al_deploy_files}
    RESULT_VARIABLE _al_result)
if(NOT _al_result EQUAL 0)
    message(FATAL_ERROR \"windeployqt failed: \${_al_result}\")
endif()
")
        endif()
    endif()
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

if(WIN32)
    set(CPACK_GENERATOR "NSIS;ZIP")
else()
    set(CPACK_GENERATOR "DEB")
endif()

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

# --- NSIS ---
set(CPACK_NSIS_PACKAGE_NAME "Agent Loop")
set(CPACK_NSIS_DISPLAY_NAME "Agent Loop")
set(CPACK_NSIS_MODIFY_PATH OFF)
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
set(CPACK_NSIS_EXECUTABLES_DIRECTORY "${CMAKE_INSTALL_BINDIR}")
set(CPACK_NSIS_MANIFEST_DPI_AWARE ON)
file(TO_NATIVE_PATH "${_al_icons_dir}/agentloop.ico" _al_ico_native)
set(CPACK_NSIS_MUI_ICON "${_al_ico_native}")
set(CPACK_NSIS_MUI_UNIICON "${_al_ico_native}")
if(TARGET agentloop)
    # Icon shown in "Apps & features"; relative to the install directory.
    set(CPACK_NSIS_INSTALLED_ICON_NAME "${CMAKE_INSTALL_BINDIR}\\agentloop.exe")
endif()
if(PROJECT_HOMEPAGE_URL)
    set(CPACK_NSIS_URL_INFO_ABOUT "${PROJECT_HOMEPAGE_URL}")
endif()

# Per-generator package file names: CPack reads this file once per generator.
set(_al_cpack_options "${CMAKE_BINARY_DIR}/AgentLoopCPackOptions.cmake")
file(CONFIGURE OUTPUT "${_al_cpack_options}" @ONLY CONTENT [[
# Generated by cmake/Packaging.cmake
if(CPACK_GENERATOR STREQUAL "NSIS")
    set(CPACK_PACKAGE_FILE_NAME "Agent Loop Setup @PROJECT_VERSION@")
endif()
]])
set(CPACK_PROJECT_CONFIG_FILE "${_al_cpack_options}")

include(CPack)
