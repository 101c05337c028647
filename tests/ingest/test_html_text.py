"""HTML bodies to text as a reader sees them: source line breaks inside a paragraph are spaces."""

from __future__ import annotations

from herald.enrich.text import split_sentences
from herald.ingest.articles import html_to_text

# The shape of a CMS export in a feed's content:encoded: paragraphs hard-wrapped in the source,
# a <br> inside a paragraph, a list, and a code sample in <pre>.
FRAGMENT = """<p>The city council voted on Tuesday to extend the
tram line to the airport, a project that has been
discussed for more than a decade.</p>
<p>Construction starts in <b>spring</b>. The mayor said the line would open<br>
in 2028 at the latest.</p>
<ul><li>Cost: 480 million euros</li><li>Length: 12 km</li></ul>
<pre>line one
line two</pre>"""


def test_line_breaks_inside_a_paragraph_are_spaces_and_paragraphs_stay_separate() -> None:
    assert html_to_text(FRAGMENT) == (
        "The city council voted on Tuesday to extend the tram line to the airport, a project "
        "that has been discussed for more than a decade.\n\n"
        "Construction starts in spring. The mayor said the line would open\n"
        "in 2028 at the latest.\n\n"
        "Cost: 480 million euros\n\nLength: 12 km\n\n"
        "line one\nline two"
    )


def test_sentences_of_the_extracted_text_are_whole() -> None:
    text = html_to_text(FRAGMENT)
    assert [s.text for s in split_sentences(text, wrapped_lines=True)][:4] == [
        "The city council voted on Tuesday to extend the tram line to the airport, a project "
        "that has been discussed for more than a decade.",
        "Construction starts in spring.",
        "The mayor said the line would open in 2028 at the latest.",
        "Cost: 480 million euros",
    ]
