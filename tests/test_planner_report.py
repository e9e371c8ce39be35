"""``mcio report``: one self-contained HTML file (every image a data: URI, nothing fetched from
the network, no script), with the flags, the configuration and one table row per point; a
comparison's report has the before/after with paired CIs. Rendered in headless Chromium to a
screenshot that must be the window's size and not blank."""
import os
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pytest
from click.testing import CliRunner

from mcio.cli import main
from mcio.compare import compare
from mcio.sweep import load_spec, sweep
from sweep_specs import FICON_GRID, VARIANT_GRID, write

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)


class Doc(HTMLParser):
    """Collects what the checks need: images' sources, every URL-bearing attribute, scripts,
    stylesheet links, and each table's body rows."""

    def __init__(self):
        super().__init__()
        self.imgs, self.urls, self.scripts, self.links = [], [], 0, 0
        self.rows, self._table, self._in_body = {}, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href", "data", "action", "poster"):
            if k in a:
                self.urls.append(a[k])
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if tag == "script":
            self.scripts += 1
        if tag == "link":
            self.links += 1
        if tag == "table":
            self._table = a.get("id", "")
            self.rows[self._table] = 0
        if tag == "tbody":
            self._in_body = True
        if tag == "tr" and self._in_body:
            self.rows[self._table] += 1

    def handle_endtag(self, tag):
        if tag == "tbody":
            self._in_body = False


def parse(path) -> tuple[Doc, str]:
    text = path.read_text(encoding="utf-8")
    d = Doc()
    d.feed(text)
    return d, text


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from mcio.store import write_netcdf
    d = tmp_path_factory.mktemp("rep")
    grid = d / "grid.h5"
    sweep(write(d, FICON_GRID), out=grid)
    s = load_spec(write(d, VARIANT_GRID, "v.toml"))
    cmp = d / "cmp.h5"
    write_netcdf(compare(s.point_model(0), s.point_model(2), ios=2000, replications=3,
                         labels=("ccw", "fast_mp")), cmp)
    return grid, cmp


def test_sweep_report_self_contained_one_row_per_point(files, tmp_path):
    grid, _ = files
    out = tmp_path / "r.html"
    r = CliRunner().invoke(main, ["report", str(grid), "-o", str(out)])
    assert r.exit_code == 0, r.output
    doc, text = parse(out)
    assert len(doc.imgs) >= 1 and all(s.startswith("data:image/png;base64,") for s in doc.imgs)
    assert all(not u.lower().startswith(("http:", "https:", "//")) for u in doc.urls)
    assert "http://" not in text and "https://" not in text
    assert doc.scripts == 0 and doc.links == 0
    assert doc.rows["points"] == 6  # 3 populations x 2 channel counts
    assert "Flags" in text and "Configuration" in text and "[sweep]" in text  # the spec as run


def test_compare_report_before_after(files, tmp_path):
    _, cmp = files
    out = tmp_path / "c.html"
    r = CliRunner().invoke(main, ["report", str(cmp), "-o", str(out)])
    assert r.exit_code == 0, r.output
    doc, text = parse(out)
    assert len(doc.imgs) == 1 and doc.imgs[0].startswith("data:image/png;base64,")
    assert doc.rows["figures"] == 11 and "±95% paired" in text and "Before / after" in text
    assert "mp_us_per_io_ccw" in text  # the models' difference shown
    assert "http://" not in text and "https://" not in text


def test_report_of_a_missing_file_is_one_line_exit_2(tmp_path):
    r = CliRunner().invoke(main, ["report", str(tmp_path / "none.h5"), "-o", str(tmp_path / "x.html")])
    assert r.exit_code == 2 and r.output.count("\n") == 1


@pytest.mark.skipif(CHROMIUM is None, reason="headless rendering needs Debian's chromium package "
                                             "(apt-get install chromium; .ci/run installs it)")
def test_report_renders_in_headless_chromium(files, tmp_path):
    import matplotlib.image as mpimg
    grid, _ = files
    html = tmp_path / "r.html"
    assert CliRunner().invoke(main, ["report", str(grid), "-o", str(html)]).exit_code == 0
    png = tmp_path / "shot.png"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'ud'}",
           f"--screenshot={png}", "--window-size=1200,2000", html.as_uri()]
    subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    assert png.exists(), "chromium wrote no screenshot"
    img = mpimg.imread(png)
    assert img.shape[:2] == (2000, 1200)
    rgb = img[..., :3].reshape(-1, 3)
    assert len(np.unique((rgb * 255).astype(np.uint8), axis=0)) > 200   # text, figure, table: many colours
    non_white = (rgb.min(axis=1) < 0.9).mean()
    assert 0.03 < non_white < 0.9    # neither blank nor a flood
    # the embedded figure drew (its blue curve and orange stack), not a broken-image icon
    blue = ((rgb[:, 2] > 0.6) & (rgb[:, 0] < 0.3)).sum()
    assert blue > 500
