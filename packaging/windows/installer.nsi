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
; menu shortcut, an optional desktop shortcut, optionally the installation folder on the user's
; PATH (/AddToPath ticks it, also in a silent install), and an uninstaller listed in
; "Apps & features".
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
!include FileFunc.nsh
!include Sections.nsh
!include StrFunc.nsh
!include WinMessages.nsh
${Using:StrFunc} StrStr
${Using:StrFunc} UnStrRep

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
LangString SectionPath ${LANG_ENGLISH} "agentloop-cli on my PATH"
LangString SectionPath ${LANG_SIMPCHINESE} "将 agentloop-cli 加入 PATH"
LangString DescPath ${LANG_ENGLISH} "Adds the folder to your PATH: agentloop-cli then runs in new terminals. Only the current user's PATH, also for an all-users install. Undone on uninstall."
LangString DescPath ${LANG_SIMPCHINESE} "把安装文件夹加入你的 PATH，新打开的终端里即可运行 agentloop-cli。即使为所有用户安装，也只改当前用户的 PATH。卸载时删除。"
LangString PathTooLong ${LANG_ENGLISH} "Your PATH is too long for the installer to change it safely. Add $INSTDIR to it yourself."
LangString PathTooLong ${LANG_SIMPCHINESE} "你的 PATH 太长，安装程序无法安全地修改它。请自行添加 $INSTDIR。"
LangString PathNotRemoved ${LANG_ENGLISH} "Your PATH is too long for the uninstaller to change it safely. Remove $R0 from it yourself."
LangString PathNotRemoved ${LANG_SIMPCHINESE} "你的 PATH 太长，卸载程序无法安全地修改它。请自行删除 $R0。"
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

; HKCU even for an all-users install: a per-machine PATH entry would reach every account, and
; only the user who chose this asked for it.
Section /o "$(SectionPath)" SecPath
    Call AddToUserPath
SectionEnd

!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
    !insertmacro MUI_DESCRIPTION_TEXT ${SecProgram} $(DescProgram)
    !insertmacro MUI_DESCRIPTION_TEXT ${SecDesktop} $(DescDesktop)
    !insertmacro MUI_DESCRIPTION_TEXT ${SecPath} $(DescPath)
!insertmacro MUI_FUNCTION_DESCRIPTION_END

; The user's PATH is HKCU\Environment's "Path". NSIS holds at most NSIS_MAX_STRLEN (1024)
; characters in a variable and cannot read a longer value at all: such a PATH is left alone
; rather than written back cut short.
; ReadUserPath: the value in $0, and $1 = 1 when there is one that could not be read.
!macro READ_USER_PATH un
Function ${un}ReadUserPath
    StrCpy $1 0
    ClearErrors
    ReadRegStr $0 HKCU "Environment" "Path"
    ${If} ${Errors}
        ; No such value, or one NSIS cannot read: the second still has its name listed.
        StrCpy $2 0
        ${Do}
            EnumRegValue $3 HKCU "Environment" $2
            ${If} $3 == ""
                ${ExitDo}
            ${ElseIf} $3 == "Path"
                StrCpy $1 1
                ${ExitDo}
            ${EndIf}
            IntOp $2 $2 + 1
        ${Loop}
    ${EndIf}
FunctionEnd
!macroend
!insertmacro READ_USER_PATH ""
!insertmacro READ_USER_PATH "un."

Function AddToUserPath
    Call ReadUserPath
    StrLen $2 $0
    StrLen $3 $INSTDIR
    IntOp $2 $2 + $3
    IntOp $2 $2 + 2  ; the ";" between them and the string's end
    ${If} $1 == 1
    ${OrIf} $2 > ${NSIS_MAX_STRLEN}
        DetailPrint "$(PathTooLong)"
        MessageBox MB_OK|MB_ICONEXCLAMATION "$(PathTooLong)" /SD IDOK
        Return
    ${EndIf}
    ; Already there (added by hand, or by an earlier install): nothing to add or to take out later.
    ${StrStr} $2 ";$0;" ";$INSTDIR;"
    ${If} $2 != ""
        Return
    ${EndIf}
    StrCpy $2 $0 1 -1
    ${If} $0 == ""
        StrCpy $0 $INSTDIR
    ${ElseIf} $2 == ";"
        StrCpy $0 "$0$INSTDIR"
    ${Else}
        StrCpy $0 "$0;$INSTDIR"
    ${EndIf}
    WriteRegExpandStr HKCU "Environment" "Path" $0
    ; The entry the uninstaller takes out again.
    WriteRegStr SHCTX "${APP_KEY}" "AddedToPath" $INSTDIR
    ; Explorer, and so every program started afterwards, picks up the new PATH.
    SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
FunctionEnd

Function un.RemoveFromUserPath
    ReadRegStr $R0 SHCTX "${APP_KEY}" "AddedToPath"
    ${If} $R0 == ""
        Return
    ${EndIf}
    Call un.ReadUserPath
    StrLen $2 $0
    IntOp $2 $2 + 3  ; a ";" on either side and the string's end
    ${If} $1 == 1
    ${OrIf} $2 > ${NSIS_MAX_STRLEN}
        DetailPrint "$(PathNotRemoved)"
        MessageBox MB_OK|MB_ICONEXCLAMATION "$(PathNotRemoved)" /SD IDOK
        Return
    ${EndIf}
    ; Entry by entry: ";A;X;B;" becomes ";A;B;", and never a part of a longer entry goes.
    ${UnStrRep} $2 ";$0;" ";$R0;" ";"
    ${If} $2 == ";$0;"
        Return  ; the user has taken it out already
    ${EndIf}
    StrCpy $2 $2 "" 1
    StrCpy $2 $2 -1
    ${If} $2 == ""
        DeleteRegValue HKCU "Environment" "Path"
    ${Else}
        WriteRegExpandStr HKCU "Environment" "Path" $2
    ${EndIf}
    SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
FunctionEnd

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
    ; /AddToPath ticks "Add agentloop-cli to my PATH", the only way to choose it in a silent install.
    ${GetParameters} $0
    ClearErrors
    ${GetOptions} $0 "/AddToPath" $1
    ${IfNot} ${Errors}
        !insertmacro SelectSection ${SecPath}
    ${EndIf}
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

    Call un.RemoveFromUserPath
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
