"""docs/python.md shows examples/seed.py verbatim (the CTest test python_example_seed runs
the file, so the page's example is the one that is tested)."""

import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("PVEC_SOURCE_DIR", os.path.join(HERE, "..", "..", ".."))


def test_docs_example_is_seed_py():
    with open(os.path.join(SOURCE_DIR, "docs", "python.md")) as f:
        page = f.read()
    m = re.search(r"<!-- seed\.py begin -->\n```python\n(.*?)```\n<!-- seed\.py end -->", page,
                  re.S)
    assert m, "docs/python.md lost its seed.py block"
    with open(os.path.join(HERE, "..", "examples", "seed.py")) as f:
        assert m.group(1) == f.read()
