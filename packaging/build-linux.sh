#!/usr/bin/env bash
# Build the one-folder Linux bundle into dist/vault-recall/ (run from anywhere).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-.venv/bin/python}"
"$python" -m pip install -q 'pyinstaller>=6,<7'
"$python" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "${DIST:-dist}" --workpath "${WORK:-build}" packaging/vault-recall.spec
echo "built: ${DIST:-dist}/vault-recall/vault-recall"
