"""What text means for identity: invisible characters, letters' scripts, and the normal form.

Identity (of papers and authors, `model.identity`) is the normal form of a title or a name:
invisible characters dropped (Unicode's default-ignorable code points: zero-width spaces and
joiners, soft hyphens, byte-order marks, bidirectional controls, variation selectors), Unicode
NFKC, accents folded, case-folded, and every run of punctuation or spacing collapsed to one
space. Look-alike letters from another script (a Cyrillic `а` among Latin letters) do change
it; `mixed_script_words` finds them so that the seed reader can warn. Text functions only:
this module reads nothing and imports nothing of scholarsite.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import groupby

NON_WORD_RE = re.compile(r"[\W_]+")

# Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt; it has hardly
# changed in years, the reserved ranges are already in): characters that are invisible unless a
# font chooses to show them. Python's unicodedata has no such property, hence the table (a test
# checks it against the `regex` module's \p{Default_Ignorable_Code_Point} when installed).
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors, vowel separator
    (0x200B, 0x200F),  # zero-width space, ZWNJ, ZWJ, left-to-right and right-to-left marks
    (0x202A, 0x202E),  # bidirectional embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidirectional isolates, deprecated controls
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors 1-16
    (0xFEFF, 0xFEFF),  # zero-width no-break space (byte-order mark)
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol beam, tie, slur and phrase controls
    (0xE0000, 0xE0FFF),  # tags, variation selectors 17-256, reserved
)
IGNORABLE_RE = re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in DEFAULT_IGNORABLE) + "]")

# Scripts that mix inside one word in ordinary writing (Japanese mixes kanji, kana and Latin
# letters without spaces; Korean mixes Hangul and Hanja); named by the first word of Unicode
# character names.
EAST_ASIAN = frozenset(
    {"CJK", "IDEOGRAPHIC", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HANGUL", "BOPOMOFO"}
)


def strip_ignorable(text: str) -> str:
    """`text` without default-ignorable (invisible) code points (none is ASCII)."""
    return text if text.isascii() else IGNORABLE_RE.sub("", text)


def normalise(text: str) -> str:
    """Invisible characters dropped, NFKC, accents folded, case-folded, punctuation and spacing
    collapsed to single spaces.

    Text made only of symbols (`∑`) keeps its symbols, so it never collapses to nothing.
    """
    if text.isascii():  # nothing to fold (most titles and names): the same result, faster
        bare = text
    else:
        folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", strip_ignorable(text)))
        bare = unicodedata.normalize("NFKC", "".join(c for c in folded if not unicodedata.combining(c)))
    words = NON_WORD_RE.sub(" ", bare.casefold()).strip()
    return words or " ".join(bare.casefold().split())


def letter_script(char: str) -> str | None:
    """The script of a letter, as the first word of its Unicode name (`LATIN`, `CYRILLIC`);
    None for anything else (digits, punctuation, combining marks, modifier letters)."""
    if not unicodedata.category(char).startswith("L"):
        return None
    script = unicodedata.name(char, "").split(" ")[0]
    return None if script in ("", "MODIFIER") else script


def mixes_scripts(word: str) -> tuple[str, ...]:
    """The scripts of `word`'s letters in order of appearance, when they mix suspiciously; ().

    East Asian scripts mix legitimately and are left out. A Greek run at one end of a Latin
    word (`μTransfer`, `Netβ`) is a naming convention; a Greek letter inside one is not."""
    scripts = [s for s in map(letter_script, word) if s is not None and s not in EAST_ASIAN]
    distinct = tuple(dict.fromkeys(scripts))
    runs = len([script for script, _ in groupby(scripts)])
    if len(distinct) < 2 or (set(distinct) == {"LATIN", "GREEK"} and runs == 2):
        return ()
    return distinct


def mixed_script_words(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each word of `text` (invisible characters dropped, NFKC) whose letters mix scripts, with
    those scripts: a look-alike such as Cyrillic `а` in `Grаph` gives a different identity."""
    clean = unicodedata.normalize("NFKC", strip_ignorable(text))
    words = ("".join(chars) for is_word, chars in groupby(clean, is_word_char) if is_word)
    return [(word, scripts) for word in words if (scripts := mixes_scripts(word))]


def is_word_char(char: str) -> bool:
    """Letters, combining marks and digits make words; everything else separates them."""
    return unicodedata.category(char)[0] in "LMN"
