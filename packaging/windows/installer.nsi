; The Agent Loop installer for 64-bit Windows, built by packaging/windows/build.sh:
;   makensis -DVERSION=x.y.z -DFILE_LIST=<list.nsh> -DOUTFILE=<exe> -DICON=<ico>
;            -DLICENSE=<file> [-DSIGN=<sign.sh>] installer.nsi
;
; FILE_LIST is made by build.sh from the deployed folder (write_installer_file_list in
; deploy.sh): the installer installs exactly those files and the uninstaller removes exactly
; those, so that installed into a folder other programs share, it takes none of theirs.
;
; Per-machine (Program Files, needs administrator rights) or per-user (%LOCALAPPDATA%\Programs)
; installs, chosen on a page or with /AllUsers or /CurrentUser; /S installs silently. A Start
; menu shortcut, an optional desktop shortcut, and an uninstaller listed in "Apps & features".
; Uninstalling removes the program and its shortcuts, never the user's settings, conversations
; or stored key.

Unicode true
!include "${FILE_LIST}"
Target amd64-unicode
SetCompressor /SOLID lzma
ManifestDPIAware true

!define APP_NAME "Agent Loop"
!define APP_EXE "agentloop.exe"
!define PUBLISHER "Agent Loop developers"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\AgentLoop"
!define APP_KEY "Software\AgentLoop\Installer"

Name "${APP_NAME}"
OutFile "${OUTFILE}"

!ifdef SIGN
    ; Authenticode (sign.sh, with the certificate named in the environment): the uninstaller
    ; before it is packed into the installer, then the installer once it is written.
    !uninstfinalize '"${SIGN}" sign "%1"' = 0
    !finalize '"${SIGN}" sign "%1"' = 0
!endif

BrandingText "${APP_NAME} ${VERSION}"

; MultiUser: "Highest" runs elevated when the account can be, and lets the user pick.
!define MULTIUSER_EXECUTIONLEVEL Highest
!define MULTIUSER_MUI
!define MULTIUSER_INSTALLMODE_COMMANDLINE
!define MULTIUSER_USE_PROGRAMFILES64
!define MULTIUSER_INSTALLMODE_INSTDIR "${APP_NAME}"
!define MULTIUSER_INSTALLMODE_INSTDIR_REGISTRY_KEY "${APP_KEY}"
!define MULTIUSER_INSTALLMODE_INSTDIR_REGISTRY_VALUENAME "InstallLocation"
!define MULTIUSER_INSTALLMODE_DEFAULT_REGISTRY_KEY "${APP_KEY}"
!define MULTIUSER_INSTALLMODE_DEFAULT_REGISTRY_VALUENAME "InstallMode"
!include MultiUser.nsh
!include MUI2.nsh
!include x64.nsh
!include LogicLib.nsh

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_LANGDLL_ALLLANGUAGES
!define MUI_LANGDLL_REGISTRY_ROOT SHCTX
!define MUI_LANGDLL_REGISTRY_KEY "${APP_KEY}"
!define MUI_LANGDLL_REGISTRY_VALUENAME "Language"
; "Run Agent Loop" on the finish page: the installer may be elevated (MULTIUSER_EXECUTIONLEVEL
; Highest), and a program it starts directly inherits that token, so every command approved in
; that session would run as administrator. Explorer passes the start to the desktop's shell,
; which runs it as the desktop user, unelevated.
!define MUI_FINISHPAGE_RUN
!define MUI_FINISHPAGE_RUN_FUNCTION RunAppUnelevated

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_LICENSE "${LICENSE}"
!insertmacro MULTIUSER_PAGE_INSTALLMODE
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "SimpChinese"

LangString SectionProgram ${LANG_ENGLISH} "Agent Loop (required)"
LangString SectionProgram ${LANG_SIMPCHINESE} "Agent Loop（必需）"
LangString SectionDesktop ${LANG_ENGLISH} "Desktop shortcut"
LangString SectionDesktop ${LANG_SIMPCHINESE} "桌面快捷方式"
LangString DescProgram ${LANG_ENGLISH} "The desktop app, the command-line front end (agentloop-cli.exe) and the Qt runtime."
LangString DescProgram ${LANG_SIMPCHINESE} "桌面应用、命令行前端（agentloop-cli.exe）和 Qt 运行库。"
LangString DescDesktop ${LANG_ENGLISH} "A shortcut to Agent Loop on the desktop."
LangString DescDesktop ${LANG_SIMPCHINESE} "在桌面上放一个 Agent Loop 的快捷方式。"
LangString Needs64Bit ${LANG_ENGLISH} "Agent Loop needs 64-bit Windows."
LangString Needs64Bit ${LANG_SIMPCHINESE} "Agent Loop 需要 64 位 Windows。"

VIProductVersion "${VERSION}.0"
VIFileVersion "${VERSION}.0"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductName" "${APP_NAME}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileDescription" "${APP_NAME} Setup"
VIAddVersionKey /LANG=${LANG_ENGLISH} "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "LegalCopyright" "MIT License"

Section "!$(SectionProgram)" SecProgram
    SectionIn RO
    ; Over an earlier version: its files are overwritten. A file only it had stays behind rather
    ; than guessing which files of the folder were its own.
    !insertmacro AGENTLOOP_INSTALL_FILES
    WriteUninstaller "$INSTDIR\Uninstall.exe"

    CreateShortcut "$SMPROGRAMS\${APP_NAME}.lnk" "$INSTDIR\${APP_EXE}"

    WriteRegStr SHCTX "${APP_KEY}" "InstallLocation" "$INSTDIR"
    WriteRegStr SHCTX "${APP_KEY}" "InstallMode" "$MultiUser.InstallMode"
    WriteRegStr SHCTX "${UNINSTALL_KEY}" "DisplayName" "${APP_NAME}"
    WriteRegStr SHCTX "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
    WriteRegStr SHCTX "${UNINSTALL_KEY}" "Publisher" "${PUBLISHER}"
    WriteRegStr SHCTX "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\${APP_EXE},0"
    WriteRegStr SHCTX "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
    WriteRegStr SHCTX "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\Uninstall.exe" /$MultiUser.InstallMode'
    WriteRegStr SHCTX "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\Uninstall.exe" /$MultiUser.InstallMode /S'
    WriteRegDWORD SHCTX "${UNINSTALL_KEY}" "NoModify" 1
    WriteRegDWORD SHCTX "${UNINSTALL_KEY}" "NoRepair" 1
SectionEnd

Section /o "$(SectionDesktop)" SecDesktop
    CreateShortcut "$DESKTOP\${APP_NAME}.lnk" "$INSTDIR\${APP_EXE}"
SectionEnd

!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
    !insertmacro MUI_DESCRIPTION_TEXT ${SecProgram} $(DescProgram)
    !insertmacro MUI_DESCRIPTION_TEXT ${SecDesktop} $(DescDesktop)
!insertmacro MUI_FUNCTION_DESCRIPTION_END

Function RunAppUnelevated
    Exec '"$WINDIR\explorer.exe" "$INSTDIR\${APP_EXE}"'
FunctionEnd

Function .onInit
    ${IfNot} ${RunningX64}
        MessageBox MB_OK|MB_ICONSTOP "$(Needs64Bit)" /SD IDOK
        Abort
    ${EndIf}
    SetRegView 64
    !insertmacro MULTIUSER_INIT
    !insertmacro MUI_LANGDLL_DISPLAY
FunctionEnd

Section "Uninstall"
    ; The program's own files only: settings (%APPDATA%\AgentLoop), conversations
    ; (%LOCALAPPDATA%\AgentLoop) and the key in Credential Manager belong to the user.
    ; Only the files it installed, by name; a folder only once it is empty: the user may have
    ; installed into a folder that holds other programs' files too.
    Delete "$INSTDIR\Uninstall.exe"
    !insertmacro AGENTLOOP_UNINSTALL_FILES
    RMDir "$INSTDIR"

    Delete "$SMPROGRAMS\${APP_NAME}.lnk"
    Delete "$DESKTOP\${APP_NAME}.lnk"
    DeleteRegKey SHCTX "${UNINSTALL_KEY}"
    DeleteRegKey SHCTX "${APP_KEY}"
    DeleteRegKey /ifempty SHCTX "Software\AgentLoop"
SectionEnd

Function un.onInit
    SetRegView 64
    !insertmacro MULTIUSER_UNINIT
    !insertmacro MUI_UNGETLANGUAGE
FunctionEnd
