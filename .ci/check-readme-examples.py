#!/usr/bin/env python3
"""Fails when a ```swift block of a README or of a DocC article is not, line for line, in its examples test files:
the root README's and the articles' (Sources/*/*.docc/*.md) in Tests/LoftTests/*ExamplesTests.swift, each
add-on's (Integrations/NAME/README.md) in its own tests.

The test file compiles and runs every block, so this check is what proves that the README's code is true.
Lines are compared without their leading white space (the test file indents them inside functions).
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
root_examples = sorted((root / "Tests/LoftTests").glob("*ExamplesTests.swift"))
pairs = [(root / "README.md", root_examples)]
for article in sorted(root.glob("Sources/*/*.docc/*.md")):
    pairs.append((article, root_examples))
for addon in sorted((root / "Integrations").glob("*/README.md")):
    pairs.append((addon, [addon.parent / "Tests" / f"{addon.parent.name}Tests" / "ReadmeExamplesTests.swift"]))

failed = False
for readme_path, examples_paths in pairs:
    readme = readme_path.read_text()
    examples = "\n".join(path.read_text() for path in examples_paths if path.exists())
    examples_path = examples_paths[0] if len(examples_paths) == 1 else root / "Tests/LoftTests"
    blocks = re.findall(r"^```swift\n(.*?)^```", readme, flags=re.S | re.M)
    haystack = "\n".join(line.strip() for line in examples.splitlines())
    missing = []
    for block in blocks:
        needle = "\n".join(line.strip() for line in block.splitlines())
        if needle not in haystack:
            missing.append(block)
    name = readme_path.relative_to(root)
    if not blocks and name.suffix == ".md" and name.name == "README.md":
        print(f"{name} has no ```swift block: nothing to check, which is suspicious.")
        failed = True
    for block in missing:
        print(f"{name} block not found in {examples_path.relative_to(root)}:\n" + block)
    print(f"{name} examples: {len(blocks) - len(missing)} of {len(blocks)} blocks compiled by the test suite.")
    failed = failed or bool(missing)
sys.exit(1 if failed else 0)
