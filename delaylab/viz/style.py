"""The colours and line styles of the workbook's curves, readable with colour-blind vision.

Colours come from the Okabe–Ito palette and Paul Tol's "muted" scheme, both designed to stay
distinguishable under the common colour-vision deficiencies. In the regret figures each algorithm
keeps one colour across the notebooks. Most variants of an algorithm share its colour and differ by
dash pattern (the uncensored UD- indices, Patient Bandits without its bias term; the indices
"without Ñ" dotted, with open circles; dash-dotted, OTFLinUCB with the index of the authors' code,
Skipper at the oracle β, ODAAF with bridge periods and ODAAF-B without, as any other "name
(variant)" of a known name); some have a colour of their own (the indices with an estimated delay
law, OTFLinUCB without its delay term, Skipper without skipping, ODAAF-B and ODAAF-V). Notebook
01's Discarding baselines are dash-dotted, the delay-blind baselines dotted, uniform random play
dashed grey. Figures that sweep
a parameter colour by its value (an entry per value below, or the figure's own colours, as in
notebook 04's Figure 2). The index notebook's colour key says the same (``tests/test_index_text.py``).
Curves of one figure differ in (colour, dash, marker), and two close colours (blue/sky blue,
orange/vermillion, reddish purple/wine) also by a second channel, a dash or a marker
(:data:`SYMBOLS`); ``tests/test_figures_legible.py`` checks every figure of the workbook. Unknown
names get a stable colour from the same palette, and within one
:class:`~delaylab.viz.plots.CurvePlot` a colour no other curve uses (:func:`assign_styles`).
"""

from __future__ import annotations

import re
import zlib

from ..policies.simple import UNIFORM

#: Okabe–Ito's palette (yellow left out: unreadable on white) and Paul Tol's wine: colours that stay
#: apart under the common colour-vision deficiencies. Okabe–Ito's orange (#E69F00, 2.25:1 on white)
#: and sky blue (#56B4E9, 2.31:1) are darkened, keeping their hue, to reach the 3:1 that WCAG 1.4.11
#: asks of a curve against a white plot (3.46:1 and 4.22:1); every colour here is also at least
#: 3:1 on the dark themes' backgrounds, or has a dark variant that is (:data:`DARK`).
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, WINE = ("#0072B2", "#C27A00", "#009E73", "#D55E00", "#CC79A7",
                                                      "#0086A8", "#882255")
BLACK = "#000000"
INDIGO = "#332288"  # Paul Tol: the student's own policy
GREY = "#636363"  # uniform random play, the reference curve of every regret figure
MID_GREY = "#7F7F7F"  # UCB1
#: the colour of the text on a dark page (the theme's own): what black curves become there
FOREGROUND = "foreground"
#: each colour that is too dark for a dark page, and what it becomes there (≥ 3:1 on the dark
#: themes' backgrounds, #111111 to #14181E; ``tests/test_a11y.py``); every other colour stays
DARK: dict[str, str] = {BLACK: FOREGROUND, WINE: "#D76A9E", INDIGO: "#9C8CEB", GREY: "#8C8C8C"}
#: in this order, the first five are pairwise far apart (blue/sky, orange/vermillion and
#: purple/wine are the close pairs): a series of up to five curves never needs a second channel
PALETTE = (BLUE, ORANGE, GREEN, PURPLE, BLACK, VERMILLION, SKY, WINE)

# (colour, dash) per algorithm label, for every paper of the workbook. Curves that a figure
# compares differ in (colour, dash, marker); when two have close colours (blue/sky blue), they also
# differ by dash or marker (SYMBOLS). tests/test_figures_legible.py checks every figure.
STYLES: dict[str, tuple[str, str]] = {
    # the reference of every regret figure: uniform random play, dashed grey (GREY: 5.9:1 on white;
    # on a dark page its dark variant, DARK: 5.3:1 on the site's dark background)
    UNIFORM: (GREY, "dash"),
    # baselines without delay correction
    "UCB1": (MID_GREY, "dot"),
    "KL-UCB": ("#000000", "dot"),
    # Vernade, Cappé, Perchet 2017: UCB-type indices blue, KL-type vermillion (the key comparison)
    "D-UCB": (BLUE, "solid"),
    "UD-UCB": (BLUE, "dash"),
    "D-KLUCB": (VERMILLION, "solid"),
    "UD-KLUCB": (VERMILLION, "dash"),
    # the same indices "without Ñ" (told that conversions arrive at once, Ñ = N): their colour,
    # dotted like the delay-blind baselines, with open circles (a second channel)
    "D-UCB without Ñ": (BLUE, "dot"),
    "UD-UCB without Ñ": (BLUE, "dot"),
    "D-KLUCB without Ñ": (VERMILLION, "dot"),
    "UD-KLUCB without Ñ": (VERMILLION, "dot"),
    "Discarding UCB": (GREEN, "dashdot"),
    "Discarding KL-UCB": (PURPLE, "dashdot"),
    "D-KLUCB (estimated CDF)": (GREEN, "solid"),
    "UD-KLUCB (estimated geometric law)": (GREEN, "dash"),
    "D-UCB (estimated CDF)": (SKY, "solid"),
    "UD-UCB (estimated geometric law)": (SKY, "dash"),
    # Manegueu et al. 2020
    "Patient Bandits": (PURPLE, "solid"),
    "Patient Bandits (no bias term)": (PURPLE, "dash"),  # the same index without its bias term
    "Adapt-Patient Bandits": (GREEN, "solid"),
    # the hyperparameter values of the paper's Figures 4–6: one colour per value ("α-hat": a
    # combining hat does not sit on its letter in every figure font)
    "Patient Bandits (α-hat = 0.1)": (PURPLE, "solid"),
    "Patient Bandits (α-hat = 0.3)": (VERMILLION, "solid"),
    "Patient Bandits (α-hat = 0.5)": (ORANGE, "solid"),
    "Patient Bandits (α-hat = 0.6)": (SKY, "solid"),
    "D-UCB (m = 10)": (SKY, "dash"),
    "D-UCB (m = 50)": (BLUE, "dash"),
    "D-UCB (m = 100)": (GREEN, "dash"),
    "D-UCB (m = 200)": ("#000000", "dash"),
    # Figure 3 of Manegueu et al.: one curve per tail index of arm 2
    "α₂ = 0.2": (BLUE, "solid"),
    "α₂ = 0.3": (VERMILLION, "solid"),
    "α₂ = 0.4": (GREEN, "solid"),
    "α₂ = 0.5": (PURPLE, "solid"),
    "α₂ = 0.8": (BLACK, "solid"),
    # series of arms (per-arm figures)
    "arm 1": (BLUE, "solid"),
    "arm 2": (VERMILLION, "solid"),
    "arm 3": (GREEN, "solid"),
    "arm 4": (PURPLE, "solid"),
    # Vernade et al. 2020
    "OTFLinUCB": (BLUE, "solid"),
    "OTFLinUCB without delay term": (GREEN, "dash"),  # Algorithm 1 with α = 2f: what the delay term costs
    "OTFLinUCB (authors' code)": (BLUE, "dashdot"),  # the index of the authors' public code
    "OTFLinTS": (VERMILLION, "solid"),
    "LinUCB": ("#000000", "dot"),
    # Pike-Burke et al. 2018
    "ODAAF": (BLUE, "solid"),
    "ODAAF-B": (PURPLE, "solid"),
    "ODAAF-V": (GREEN, "solid"),
    # the bridge periods switched on (plain ODAAF) or off (ODAAF-B): notebook 04's bridge figure
    "ODAAF (with bridges)": (BLUE, "dashdot"),
    "ODAAF-B (without bridges)": (PURPLE, "dashdot"),
    "QPM-D": (VERMILLION, "solid"),
    "Improved UCB": ("#000000", "dot"),
    # Thune et al. 2019
    "Exp3": ("#000000", "dot"),
    "DEW": (ORANGE, "solid"),
    "Skipper": (BLUE, "solid"),
    "Skipper without skipping": (GREEN, "dash"),  # its base at its rate, fed every loss: what skipping changes
    "Skipper (oracle β)": (BLUE, "dashdot"),  # Example 8: Skipper at the β that minimises its bound
    "Doubling": (PURPLE, "solid"),
    # the student's own policy raced in a live panel (indigo, drawn thicker with diamond markers)
    "your policy": (INDIGO, "solid"),
}

#: a marker (second channel) for curves whose colour is close to another one of the same figure
SYMBOLS: dict[str, str] = {
    "D-UCB (m = 10)": "circle", "D-UCB (m = 50)": "square", "D-UCB (m = 100)": "diamond",
    "D-UCB (m = 200)": "triangle-up",
    "UD-UCB (estimated geometric law)": "circle", "UD-KLUCB (estimated geometric law)": "circle",
    "D-UCB without Ñ": "circle-open", "UD-UCB without Ñ": "circle-open", "D-KLUCB without Ñ": "circle-open",
    "UD-KLUCB without Ñ": "circle-open",
}


#: what each colour of the palette is called, for a text alternative that names it
COLOUR_NAMES: dict[str, str] = {BLUE: "blue", ORANGE: "orange", GREEN: "bluish green", VERMILLION: "vermillion",
                                PURPLE: "reddish purple", SKY: "sky blue", WINE: "wine red", BLACK: "black",
                                GREY: "dark grey", MID_GREY: "grey", INDIGO: "indigo"}
#: plotly's dash patterns in words
DASH_NAMES: dict[str, str] = {"solid": "solid", "dash": "dashed", "dot": "dotted", "dashdot": "dash-dotted",
                              "longdash": "long-dashed", "longdashdot": "long-dash-dotted"}


def describe_style(color: str | None, dash: str | None = None, marker: str | None = None) -> str:
    """A curve's look in words: "blue dashed line with circles" (for a text alternative)."""
    name = COLOUR_NAMES.get((color or "").upper()) or COLOUR_NAMES.get(color or "") or (color or "")
    out = f"{name} {DASH_NAMES.get(dash or 'solid', dash or 'solid')} line".strip()
    return f"{out} with {marker.replace('-', ' ')} markers" if marker else out


def luminance(color: str) -> float:
    """WCAG's relative luminance of a ``#RRGGBB`` colour."""
    c = color.lstrip("#")
    lin = [(v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4) for v in (int(c[i:i + 2], 16) / 255 for i in (0, 2, 4))]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two ``#RRGGBB`` colours (1 to 21)."""
    x, y = sorted((luminance(a), luminance(b)), reverse=True)
    return (x + 0.05) / (y + 0.05)


def text_colour(color: str, background: str = "#FFFFFF", need: float = 4.5) -> str:
    """``color`` darkened, keeping its hue, until text in it reaches ``need`` (WCAG 1.4.3: 4.5:1)
    on ``background``: a label beside a curve in the curve's colour (vermillion #D55E00, 3.87:1 on
    white, becomes #C25600, 4.5:1)."""
    c = color.lstrip("#")
    rgb = [int(c[i:i + 2], 16) for i in (0, 2, 4)]
    for k in range(101):
        out = "#" + "".join(f"{round(v * (1 - k / 100)):02X}" for v in rgb)
        if contrast(out, background) >= need:
            return out
    return "#000000"


def symbol(name: str) -> str | None:
    """The marker symbol drawn along an algorithm's curve, or None for a plain line."""
    return SYMBOLS.get(name)


def series(i: int) -> dict:
    """Style of the i-th curve of a series without names of its own (colour, then dash)."""
    dashes = ("solid", "dash", "dot")
    return {"color": PALETTE[i % len(PALETTE)], "dash": dashes[(i // len(PALETTE)) % len(dashes)]}


#: unknown names: a colour of the palette (each at least 3:1 on white), chosen by a hash of the name
_FALLBACK = list(PALETTE)


def style(name: str) -> dict:
    """Plotly line style (``color``, ``dash``) for an algorithm label."""
    if name in STYLES:
        color, dash = STYLES[name]
    else:
        base = re.sub(r"\s*\(.*\)$", "", name)
        if base in STYLES and base != name:
            color, dash = STYLES[base][0], "dashdot"
        else:
            color, dash = _FALLBACK[zlib.crc32(name.encode()) % len(_FALLBACK)], "solid"
    return {"color": color, "dash": dash}


def assign_styles(names) -> dict[str, dict]:
    """Styles for the curves of one figure: each known algorithm its own, and every other name a
    palette colour that no other curve of the figure uses (hashing could give two the same)."""
    out = {n: style(n) for n in names}
    unknown = [n for n in names if n not in STYLES and re.sub(r"\s*\(.*\)$", "", n) not in STYLES]
    used = {out[n]["color"] for n in names if n not in unknown}
    free = [c for c in PALETTE if c not in used] or list(PALETTE)
    for i, n in enumerate(unknown):
        out[n] = {"color": free[i % len(free)], "dash": ("solid", "dash", "dot")[(i // len(free)) % 3]}
    return out


def band_color(name: str, alpha: float = 0.18, color: str | None = None) -> str:
    """The algorithm's colour, translucent, for its confidence band."""
    c = (color or style(name)["color"]).lstrip("#")
    r, g, b = (int(c[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


#: the papers of the workbook and the algorithms each notebook draws (for the colour legend)
PAPERS: dict[str, tuple[str, ...]] = {
    "baselines": (UNIFORM, "UCB1", "KL-UCB"),
    "01 Vernade, Cappé, Perchet 2017": ("D-UCB", "UD-UCB", "D-UCB without Ñ", "D-KLUCB", "UD-KLUCB",
                                        "D-KLUCB without Ñ", "Discarding UCB",
                                        "Discarding KL-UCB", "D-KLUCB (estimated CDF)",
                                        "UD-KLUCB (estimated geometric law)"),
    "02 Manegueu et al. 2020": ("Patient Bandits", "Patient Bandits (no bias term)", "Adapt-Patient Bandits"),
    "03 Vernade et al. 2020": ("OTFLinUCB", "OTFLinUCB (authors' code)", "OTFLinUCB without delay term", "OTFLinTS",
                               "LinUCB"),
    "04 Pike-Burke et al. 2018": ("ODAAF", "ODAAF (with bridges)", "ODAAF-B", "ODAAF-B (without bridges)", "ODAAF-V",
                                  "QPM-D", "Improved UCB"),
    "05 Thune et al. 2019": ("Exp3", "DEW", "Skipper", "Skipper (oracle β)", "Skipper without skipping", "Doubling"),
}
