#!/usr/bin/env python3
"""Writes the README's benchmark headline from Benchmarks/Results.md: some rows of the last full run, with its
date and commit, between the README's `## Benchmarks` heading and the paragraph of links after the table.

usage: python3 Benchmarks/headline.py   (after `swift run -c release Benchmarks --markdown > Benchmarks/Results.md`)
       python3 Benchmarks/headline.py --check   (CI: fails when the README's headline is not the results')
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
# The rows users feel most, and any row that missed its target in the run.
HEADLINE = ["(a) ", "(d) ", "(f) setQueryData to", "(k) ", "(l) ", "(m) ", "(o) mutation round trip", "(u) fresh fetchQuery, one task"]

results = (root / "Benchmarks/Results.md").read_text()
date = re.search(r"^- Date: (\S+)", results, re.M).group(1)[:10]
commit = re.search(r"^- Commit: (\S+)", results, re.M).group(1)
table = ["| scenario | Loft | baseline (same run) | ratio | target |", "|---|---|---|---|---|"]
for line in results.splitlines():
    if not line.startswith("| ("):
        continue
    scenario, loft, baseline, ratio, target, verdict = [cell.strip() for cell in line.strip("|").split("|")]
    if verdict == "ok" and not any(scenario.startswith(prefix) for prefix in HEADLINE):
        continue
    missed = "" if verdict == "ok" else " (missed)"
    table.append(f"| {scenario} | {loft} | {baseline} | {ratio}{missed} | {target} |")

readme_path = root / "README.md"
readme = readme_path.read_text()
start = readme.index("## Benchmarks\n")
end = readme.index("\nEvery row, with the machine and toolchain of the run", start)
section = f"""## Benchmarks

Speed is measured by the `Benchmarks` executable in release mode; each scenario does what a user does and
prints its figure beside a baseline measured in the same run, so the ratio holds on a noisy machine. Some rows
of the last full run ({date}, commit {commit}; written from `Benchmarks/Results.md` by
`python3 Benchmarks/headline.py`), and every row that missed its target:

""" + "\n".join(table) + "\n"
updated = readme[:start] + section + readme[end:]
if "--check" in sys.argv:
    if updated != readme:
        print("The README's benchmark headline is not Benchmarks/Results.md's: run python3 Benchmarks/headline.py.")
        sys.exit(1)
    print(f"README benchmark headline: the {len(table) - 2} rows of Benchmarks/Results.md ({date}, {commit}).")
    sys.exit(0)
readme_path.write_text(updated)
print(f"README benchmark headline: {len(table) - 2} rows from the run of {date} ({commit}).")
