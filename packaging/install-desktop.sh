#!/bin/sh
# Add Tabletop to the Linux desktop menu (for this user only): copies the .desktop
# entry and the icon into ~/.local/share. Run it from the unpacked standalone folder
# (dist/tabletop/install-desktop.sh) or from a source checkout after `pipx install .`
# (packaging/install-desktop.sh). `install-desktop.sh --remove` takes them out again.
set -eu
here="$(dirname "$(readlink -f "$0")")"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
apps="$data/applications"
icons="$data/icons/hicolor/256x256/apps"

if [ "${1:-}" = "--remove" ]; then
    rm -f "$apps/tabletop.desktop" "$icons/tabletop.png"
    echo "removed Tabletop from the menu"
    exit 0
fi

if [ -x "$here/tabletop" ] && [ -f "$here/tabletop.desktop" ]; then
    # The standalone folder: point the entry at this folder's executable.
    desktop="$here/tabletop.desktop"
    icon="$here/tabletop.png"
    exec_cmd="$here/tabletop"
else
    # A source checkout: the entry runs the `tabletop` command on PATH (pipx puts it in ~/.local/bin).
    desktop="$here/../tabletop/share/tabletop.desktop"
    icon="$here/../tabletop/share/icon.png"
    exec_cmd="$(command -v tabletop || true)"
    if [ -z "$exec_cmd" ]; then
        echo "install-desktop: no tabletop command on PATH; run \`pipx install .\` first" >&2
        exit 1
    fi
fi

mkdir -p "$apps" "$icons"
cp "$icon" "$icons/tabletop.png"
# Quote the path: a folder name with spaces must still start the app.
sed -e "s|^Exec=.*|Exec=\"$exec_cmd\" %f|" -e "s|^TryExec=.*|TryExec=$exec_cmd|" "$desktop" > "$apps/tabletop.desktop"
chmod +x "$apps/tabletop.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$apps" >/dev/null 2>&1 || true
echo "added Tabletop to the menu: $apps/tabletop.desktop (runs $exec_cmd)"
