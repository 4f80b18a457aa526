#!/usr/bin/env python3
"""Fails when a ```swift block of README.md is not, line for line, in the README examples test file.

The test file compiles and runs every block, so this check is what proves that the README's code is true.
Lines are compared without their leading white space (the test file indents them inside functions).
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = (root / "README.md").read_text()
examples = (root / "Tests/LoftTests/ReadmeExamplesTests.swift").read_text()

blocks = re.findall(r"^```swift\n(.*?)^```", readme, flags=re.S | re.M)
haystack = "\n".join(line.strip() for line in examples.splitlines())
missing = []
for block in blocks:
    needle = "\n".join(line.strip() for line in block.splitlines())
    if needle not in haystack:
        missing.append(block)

if not blocks:
    print("README.md has no ```swift block: nothing to check, which is suspicious.")
    sys.exit(1)
for block in missing:
    print("README block not found in Tests/LoftTests/ReadmeExamplesTests.swift:\n" + block)
print(f"README examples: {len(blocks) - len(missing)} of {len(blocks)} blocks compiled by the test suite.")
sys.exit(1 if missing else 0)
