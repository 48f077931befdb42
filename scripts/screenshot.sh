#!/usr/bin/env bash
# Captures a tmux pane (with colours) as a PNG for media/: tmux capture-pane -e → aha (ANSI to
# HTML) → headless Chromium. Needs Debian's aha and chromium: apt-get install aha chromium.
#   [TMUX_SOCKET=<name>] scripts/screenshot.sh <tmux-target> <out.png> [rows]   (TMUX_SOCKET: a tmux -L server)
set -euo pipefail
target=$1 out=$2 rows=${3:-24}
html=$(mktemp --suffix=.html)
profile=$(mktemp -d)
trap 'rm -rf "$html" "$profile"' EXIT
{
  echo '<html><head><meta charset="utf-8"><style>'
  echo 'body{margin:0;background:#1e1e2e;} pre{margin:0;padding:14px 18px;color:#cdd6f4;font:15px/1.35 "DejaVu Sans Mono",monospace;}'
  echo '</style></head><body><pre>'
  # tmux follows a reset with default colours (ESC[0;7m ESC[39m ESC[49m): no-ops to a terminal, but
  # aha applies them after the inverse and loses it, so they are dropped after a reset.
  tmux ${TMUX_SOCKET:+-L "$TMUX_SOCKET"} capture-pane -e -p -t "$target" | head -n "$rows" | sed -E 's/(\x1b\[0(;[0-9]+)*m)\x1b\[39m\x1b\[49m/\1/g' | aha --no-header --black
  echo '</pre></body></html>'
} >"$html"
width=$(( $(tmux ${TMUX_SOCKET:+-L "$TMUX_SOCKET"} display -p -t "$target" '#{pane_width}') * 9 + 40 ))
height=$(( rows * 20 + 30 ))
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars \
  --window-size="$width,$height" --screenshot="$out" "file://$html" >/dev/null 2>&1
echo "wrote $out"
