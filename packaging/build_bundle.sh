#!/usr/bin/env bash
# Build the one-folder bundle: dist/skill-studio/skill-studio, and a .tar.gz of it.
# The package is built as a wheel and installed in a fresh build environment first, so the
# bundle holds exactly what the wheel holds. Then the bundle runs --version and --selftest.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
rm -rf build/bundle-venv build/wheel build/pyinstaller dist/skill-studio
python3 -m venv build/bundle-venv
build/bundle-venv/bin/pip install --quiet build 'pyinstaller>=6.0'
build/bundle-venv/bin/python -m build --wheel --outdir build/wheel . >/dev/null
build/bundle-venv/bin/pip install --quiet build/wheel/skill_studio-*.whl
build/bundle-venv/bin/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller \
  packaging/skill-studio.spec
version=$(dist/skill-studio/skill-studio --version | awk '{print $2}')
QT_QPA_PLATFORM=offscreen dist/skill-studio/skill-studio --selftest
tar czf "dist/skill-studio-${version}-linux-$(uname -m).tar.gz" -C dist skill-studio
echo "bundle: dist/skill-studio ($(du -sh dist/skill-studio | cut -f1)), archive $(du -h dist/skill-studio-*.tar.gz | tail -1 | cut -f1), built in $(( $(date +%s) - start )) s"
