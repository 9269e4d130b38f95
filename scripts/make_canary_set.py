"""Builds the model canary's pages: one-page PDFs, their olmOCR-Bench tests and the Markdown a right reader writes.

    python scripts/make_canary_set.py            # rewrites ocr_pipeline/canary/pages/
    python scripts/make_canary_set.py --out DIR  # writes the set under DIR instead (to compare bytes with it)

The set is what `model_canary` and `ocr-pipeline eval` run on every configured engine and server before a backfill.
It is a deployment check, not a quality benchmark: a right model passes nearly every test, a wrong model or prompt
(text unrelated to the page, a loop, an empty answer) passes almost none but the `absent` ones. So the tests are
mostly `present`, `order` and `table`, which only reading the page passes. Seeded: the same files on every run.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402 - after the path, like the imports below
from reportlab import rl_config  # noqa: E402
from reportlab.pdfgen import canvas  # noqa: E402

from tests.support.builders import near_blank  # noqa: E402
from tests.support.builders.layout_pdfs import drawn_page  # noqa: E402
from tests.support.builders.olmo_blocks import NOTES_HEAD, draw_tables, footnote_page, make_scan, rasterise  # noqa: E402
from tests.support.builders.olmo_pages import Page, words_text  # noqa: E402
from tests.support.builders.olmo_pdfs import Case, cell_test  # noqa: E402
from tests.support.builders.pdfgen import page_image_pdf  # noqa: E402

OUT = ROOT / "ocr_pipeline" / "canary" / "pages"
# No creation date or random document id in the files: the same bytes on every run (and the same set digest).
rl_config.invariant = 1
HEADS = ["Journal of Applied Husbandry", "Rural Economics Review", "The Village Newsletter", "Farm Records Quarterly"]


@dataclass
class CanaryPage(Case):
    """One canary page: its PDF, its tests (olmOCR-Bench JSONL fields) and its reference Markdown."""

    reference: str = ""

    def text_tests(self, p: Page, max_diffs: int = 0) -> None:
        """Present tests at the start, middle and end of the body; order tests across paragraphs and columns."""
        paras = p.paragraphs
        for text in (paras[0][:70], paras[len(paras) // 2][20:90], paras[-1][-70:]):
            self.add("present", text=text.strip(), max_diffs=max_diffs)
        for a, b in zip(paras, paras[1:3], strict=False):
            self.add("order", before=a[-40:].strip(), after=b[:40].strip(), max_diffs=max_diffs)
        for col in range(len(p.column_first) - 1):
            self.add("order", before=p.column_last[col][-40:], after=p.column_first[col + 1][:40], max_diffs=max_diffs)


def _html(grid: list[list[str]]) -> str:
    head = "".join(f"<th>{c}</th>" for c in grid[0])
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in grid[1:])
    return f"<table><tr>{head}</tr>{body}</table>"


def article(name: str, seed: int, columns: int, scanned: bool = False) -> CanaryPage:
    """A journal page: running head, page number, title, body text in `columns` columns."""
    rng = random.Random(seed)
    head = HEADS[seed % len(HEADS)]

    def draw(c: canvas.Canvas) -> tuple[Page, str]:
        p = Page(c, rng, columns=columns)
        p.furniture(head, str(rng.randrange(20, 400)), None)
        title = words_text(rng, 6).title()
        p.title(title)
        p.fill(paragraphs=10)
        return p, title

    pdf, (p, title) = drawn_page(draw)
    page = CanaryPage(name, rasterise(pdf) if scanned else pdf)
    page.reference = f"# {title}\n\n" + "\n\n".join(p.paragraphs)
    page.add("present", text=title, max_diffs=2 if scanned else 0)
    page.text_tests(p, max_diffs=2 if scanned else 0)
    page.add("absent", text=head)
    page.add("absent", text=p.page_number)
    page.add("baseline")
    return page


def table_page(name: str, seed: int, style: str, scanned: bool = False) -> CanaryPage:
    """A paragraph, a table in `style` (grid, booktabs, plain), more paragraphs."""
    rng = random.Random(seed)
    pdf, (p, [grid]) = drawn_page(lambda c: draw_tables(c, rng, style, 1, False))
    page = CanaryPage(name, rasterise(pdf) if scanned else pdf)
    page.reference = "\n\n".join([p.paragraphs[0], _html(grid), *p.paragraphs[1:]])
    for _ in range(4):
        page.add("table", **cell_test(grid, rng.randrange(1, len(grid)), rng.randrange(1, len(grid[0])), down=False))
    page.add("present", text=p.paragraphs[0][:70], max_diffs=2 if scanned else 0)
    page.add("present", text=p.paragraphs[-1][-70:], max_diffs=2 if scanned else 0)
    page.add("absent", text=p.page_number)
    page.add("baseline")
    return page


def notes_page(name: str, seed: int) -> CanaryPage:
    """Body text and footnotes above a page number: the footnotes are content, the head and number are not."""
    page = CanaryPage(name)
    page.pdf, p = footnote_page(random.Random(seed))
    page.reference = "\n\n".join([*p.paragraphs, *p.notes])
    page.text_tests(p)
    for note in p.notes:
        page.add("present", text=note[:60])
    page.add("order", before=p.paragraphs[-1][-40:], after=p.notes[0][:40])
    page.add("absent", text=NOTES_HEAD)
    page.add("absent", text=p.page_number)
    return page


# Pages in other languages: a model that translates, or answers in English whatever the page, fails their tests.
FOREIGN = {
    "fr": [
        "Le conseil municipal a voté le budget de l'année prochaine après une longue discussion.",
        "Les travaux du pont commenceront au printemps et dureront environ huit mois.",
        "Pendant ce temps, les piétons emprunteront la passerelle située près de l'ancienne gare.",
        "La bibliothèque ouvrira désormais le samedi après-midi, à la demande de nombreux lecteurs.",
        "Une exposition consacrée aux métiers du fleuve sera présentée dans la salle des fêtes.",
        "Les écoles du quartier participeront à un concours de dessin sur le thème de la forêt.",
        "Le marché du jeudi accueillera trois nouveaux producteurs de fromage et de miel.",
        "Enfin, le maire a remercié les bénévoles qui entretiennent les jardins partagés.",
    ],
    "de": [
        "Der Gemeinderat hat am Dienstag über den Ausbau des Radwegs entlang des Flusses beraten.",
        "Die Arbeiten sollen im Frühjahr beginnen und vor den Sommerferien abgeschlossen sein.",
        "Während der Bauzeit wird der Verkehr über die Brücke am Mühlenweg umgeleitet.",
        "Die Stadtbücherei verlängert ihre Öffnungszeiten und bietet künftig Lesungen für Kinder an.",
        "Im Heimatmuseum zeigt eine neue Ausstellung alte Werkzeuge aus der Landwirtschaft.",
        "Zahlreiche Bürgerinnen und Bürger äußerten sich zufrieden über die geplante Grünfläche.",
        "Der Wochenmarkt findet wegen des Stadtfestes ausnahmsweise am Freitag statt.",
        "Zum Schluss dankte der Bürgermeister allen, die sich ehrenamtlich engagieren.",
    ],
}


def foreign_page(name: str, seed: int, language: str) -> CanaryPage:
    """A one-column page in another language, with a running head and a page number."""
    rng = random.Random(seed)
    sentences = FOREIGN[language]

    def draw(c: canvas.Canvas) -> Page:
        p = Page(c, rng)
        p.furniture({"fr": "Bulletin municipal", "de": "Amtsblatt der Gemeinde"}[language], str(seed + 40), None)
        for k in range(0, len(sentences), 2):
            p.paragraph(" ".join(sentences[k : k + 2]))
        return p

    pdf, p = drawn_page(draw)
    page = CanaryPage(name, pdf)
    page.reference = "\n\n".join(p.paragraphs)
    page.text_tests(p)
    page.add("absent", text=p.page_number)
    page.add("baseline")
    return page


def scan_page(name: str, seed: int) -> CanaryPage:
    """A 150 dpi scan of a text page with no text layer."""
    rng = random.Random(seed)
    page = CanaryPage(name)
    page.pdf, lines = make_scan(rng, None)
    page.reference = "\n".join(lines)
    for line in lines[1:14:3]:
        page.add("present", text=line, max_diffs=2)
    page.add("order", before=lines[1][:30], after=lines[-1][:30], max_diffs=2)
    page.add("baseline")
    return page


def image_pdf(image: Image.Image) -> bytes:
    """A one-page scan of an A4 image as a scanner stores it (JPEG), with no text layer; the same bytes every run."""
    jpeg = io.BytesIO()
    image.save(jpeg, format="JPEG", quality=85)  # paper grain is noise: lossless it would take a megabyte a page
    jpeg.seek(0)
    return page_image_pdf(jpeg)


def blank_page(name: str, image: Image.Image, reference: str = "", present: tuple[str, ...] = ()) -> CanaryPage:
    """A near-blank scan (bleed-through, dust, a stamp): olmOCR-Bench's blank-page test, a `baseline` with a
    `max_length`, fails a model that writes a page of text for it; a right reader writes nothing (or the stamp)."""
    page = CanaryPage(name)
    page.pdf, page.reference = image_pdf(image), reference
    for text in present:
        page.add("present", text=text, max_diffs=1)
    page.add("baseline", max_length=sum(c.isalnum() for c in reference) + 10)
    return page


# Born-digital pages cost the CPU engine a fraction of a second, scans a few seconds: 21 and 7 keep the canary
# under a minute on the CPU engine on two cores.
ARTICLES = [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (17, 1), (18, 2), (19, 2), (20, 3), (21, 1)]
TABLES = [(8, "grid"), (9, "booktabs"), (10, "plain"), (22, "grid"), (23, "booktabs"), (24, "plain")]
BUILDERS: list[Callable[[], CanaryPage]] = [
    *(lambda s=s, k=k: article(f"article_{k}col_{s}", s, k) for s, k in ARTICLES),
    *(lambda s=s, k=k: article(f"scan_article_{k}col_{s}", s, k, True) for s, k in [(6, 1), (7, 2)]),
    *(lambda s=s, t=t: table_page(f"table_{t}_{s}", s, t) for s, t in TABLES),
    *(lambda s=s, t=t: table_page(f"scan_table_{t}_{s}", s, t, True) for s, t in [(11, "grid"), (12, "booktabs")]),
    *(lambda s=s: notes_page(f"footnotes_{s}", s) for s in (13, 25, 26)),
    *(lambda s=s: scan_page(f"scan_text_{s}", s) for s in (14, 15, 16)),
    lambda: foreign_page("french_27", 27, "fr"),
    lambda: foreign_page("german_28", 28, "de"),
    # Near-blank scans: a model that invents text for them fails the canary (model_canary counts the pages whose
    # answers the engine withheld or fell back on as degenerate).
    lambda: blank_page("blank_bleed_29", near_blank.bleed_through(120, 1.5)),
    lambda: blank_page("blank_bleed_30", near_blank.darkest(near_blank.bleed_through(150, 2.0), near_blank.specks(60))),
    lambda: blank_page("blank_specks_31", near_blank.specks(40)),
    lambda: blank_page("blank_stamp_32", near_blank.stamp(), "RECEIVED\n\nMAR 12 1911", ("RECEIVED",)),
]


def write_set(out: Path) -> str:
    """Write pdfs/, reference/ and tests.jsonl under `out`; returns a line saying what was written."""
    for sub in ("pdfs", "reference"):
        (out / sub).mkdir(parents=True, exist_ok=True)
        for old in (out / sub).iterdir():
            old.unlink()
    tests = []
    for build in BUILDERS:
        page = build()
        (out / "pdfs" / f"{page.name}.pdf").write_bytes(page.pdf)
        (out / "reference" / f"{page.name}.md").write_text(page.reference + "\n", encoding="utf-8")
        tests.extend(page.tests)
    (out / "tests.jsonl").write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tests))
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return f"{len(BUILDERS)} pages, {len(tests)} tests, {size / 1e6:.2f} MB in {out}"


def main() -> None:
    """Write the set under ocr_pipeline/canary/pages/ (or `--out`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder to write the set in (default: the shipped one)")
    print(write_set(parser.parse_args().out))


if __name__ == "__main__":
    main()
