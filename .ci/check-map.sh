#!/usr/bin/env bash
# The map (Sources/Loft/Loft.docc/HowItWorks.md) names every file on the paths it walks: the entry, the
# observation layer and a mutation call. Fails, listing them, when a file under one of those folders is not
# named there (by its file name). `--map FILE` checks another map (the check's own test).
set -euo pipefail
cd "$(dirname "$0")/.."
map=Sources/Loft/Loft.docc/HowItWorks.md
if [ "${1:-}" = "--map" ]; then map=$2; fi
missing=0
for file in Sources/Loft/Client/Entry/*.swift Sources/Loft/Observation/*.swift Sources/Loft/Mutations/Call/*.swift; do
    name=$(basename "$file")
    if ! grep -qF "$name" "$map"; then
        echo "not named in the map ($map): $file" >&2
        missing=1
    fi
done
if [ "$missing" -ne 0 ]; then
    echo "Name each file above in the map, at the step of the path where a call crosses it." >&2
    exit 1
fi
echo "every file under Client/Entry/, Observation/ and Mutations/Call/ is named in the map"
