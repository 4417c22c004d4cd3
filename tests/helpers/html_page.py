"""A report page as the tests read it: section ids, images, links and the visible text."""

from __future__ import annotations

from html.parser import HTMLParser

__all__ = ["Page", "parse_page"]


class Page(HTMLParser):
    """Section ids, images and the visible text of a report."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.images: list[dict[str, str]] = []
        self.verdict_class = ""
        self.links: list[str] = []
        self._skip = 0
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "section" and found.get("id"):
            if found["id"] == "verdict":
                self.verdict_class = found.get("class", "")
            else:
                self.sections.append(found["id"])
        if tag == "img":
            self.images.append(found)
        if tag in ("script", "style"):
            self._skip += 1
        for attr in ("src", "href"):
            if tag != "img" and found.get(attr):
                self.links.append(found[attr])

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._text.append(data)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self._text).split())


def parse_page(html: str) -> Page:
    document = Page()
    document.feed(html)
    return document
