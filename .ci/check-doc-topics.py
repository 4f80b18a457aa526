#!/usr/bin/env python3
"""Fails when a top-level public symbol that a module declares is in no topic group of its DocC catalogue.

usage: check-doc-topics.py MODULE SYMBOL_GRAPH_DIR CATALOGUE

The symbols are read from MODULE.symbols.json (as `swift build -Xswiftc -emit-symbol-graph` writes it); a
symbol counts as the module's own when its source file is under Sources/MODULE/ (Loft re-exports Signals, whose
types its catalogue need not list again). A symbol is listed when a ``Symbol`` link (or ``Symbol/member``,
or ``MODULE/Symbol``) names it in a `## Topics` section of one of the catalogue's pages. Members are curated
under their type by DocC itself.
"""
import json
import pathlib
import re
import sys


def own_symbols(module: str, graph_dir: pathlib.Path) -> set[str]:
    graph = json.loads((graph_dir / f"{module}.symbols.json").read_text())
    names = set()
    for symbol in graph["symbols"]:
        path = symbol["pathComponents"]
        uri = symbol.get("location", {}).get("uri", "")
        if len(path) == 1 and f"/Sources/{module}/" in uri:
            names.add(path[0])
    return names


def curated_symbols(module: str, catalogue: pathlib.Path) -> set[str]:
    names = set()
    for page in sorted(catalogue.glob("**/*.md")):
        text = page.read_text()
        topics = text.split("\n## Topics\n", 1)
        if len(topics) < 2:
            continue
        for link in re.findall(r"``([^`]+)``", topics[1]):
            parts = link.split("/")
            if parts[0] == module and len(parts) > 1:
                parts = parts[1:]
            names.add(parts[0])
    return names


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    module, graph_dir, catalogue = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    declared = own_symbols(module, graph_dir)
    if not declared:
        print(f"{module}: no public symbol found in {graph_dir}; the symbol graph is missing or empty.")
        return 1
    missing = sorted(declared - curated_symbols(module, catalogue))
    for name in missing:
        print(f"{module}: public symbol {name} is in no topic group of {catalogue}")
    print(f"{module}: {len(declared) - len(missing)} of {len(declared)} public symbols in a topic group.")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
