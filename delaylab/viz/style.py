"""One colour per algorithm, the same in every notebook, readable with colour-blind vision.

Colours come from the Okabe–Ito palette and Paul Tol's "muted" scheme, both designed to stay
distinguishable under the common colour-vision deficiencies; related variants of one algorithm
(censored/uncensored, known/estimated law) share a colour and differ by dash pattern, and the
delay-blind baselines are drawn dotted. Unknown names get a stable colour from the same palette.
"""

from __future__ import annotations

import re
import zlib

# (colour, dash) per algorithm label, for every paper of the workbook
STYLES: dict[str, tuple[str, str]] = {
    # baselines without delay correction
    "UCB1": ("#7F7F7F", "dot"),
    "KL-UCB": ("#000000", "dot"),
    # Vernade, Cappé, Perchet 2017
    "D-UCB": ("#56B4E9", "solid"),  # sky blue
    "UD-UCB": ("#56B4E9", "dash"),
    "D-KLUCB": ("#0072B2", "solid"),  # blue
    "UD-KLUCB": ("#0072B2", "dash"),
    "Discarding UCB": ("#E69F00", "solid"),  # orange
    "Discarding KL-UCB": ("#D55E00", "solid"),  # vermillion
    "D-KLUCB (estimated CDF)": ("#009E73", "solid"),  # bluish green
    "UD-KLUCB (estimated geometric law)": ("#009E73", "dash"),
    "D-UCB (estimated CDF)": ("#44AA99", "solid"),  # teal
    "UD-UCB (estimated geometric law)": ("#44AA99", "dash"),
    # Manegueu et al. 2020
    "Patient Bandits": ("#CC79A7", "solid"),  # reddish purple
    "Adapt-Patient Bandits": ("#882255", "solid"),  # wine
    # the hyperparameter values of the paper's Figures 4–6 (same colour, one dash per value)
    "Patient Bandits (α̂ = 0.1)": ("#CC79A7", "dash"),
    "Patient Bandits (α̂ = 0.3)": ("#CC79A7", "solid"),
    "Patient Bandits (α̂ = 0.5)": ("#CC79A7", "dashdot"),
    "Patient Bandits (α̂ = 0.6)": ("#CC79A7", "dot"),
    "D-UCB (m = 10)": ("#56B4E9", "dot"),
    "D-UCB (m = 50)": ("#56B4E9", "dash"),
    "D-UCB (m = 100)": ("#56B4E9", "dashdot"),
    "D-UCB (m = 200)": ("#56B4E9", "solid"),
    # Vernade et al. 2020
    "OTFLinUCB": ("#0072B2", "solid"),
    "OTFLinTS": ("#D55E00", "solid"),
    "LinUCB": ("#000000", "dot"),
    # Pike-Burke et al. 2018
    "ODAAF": ("#0072B2", "solid"),
    "ODAAF-B": ("#56B4E9", "solid"),
    "ODAAF-V": ("#009E73", "solid"),
    "QPM-D": ("#D55E00", "solid"),
    "Improved UCB": ("#000000", "dot"),
    # Thune et al. 2019
    "Exp3": ("#000000", "dot"),
    "DEW": ("#E69F00", "solid"),
    "Skipper": ("#0072B2", "solid"),
    "Doubling": ("#CC79A7", "solid"),
    # the student's own policy raced in a live panel (indigo, drawn thicker with diamond markers)
    "your policy": ("#332288", "solid"),
}

_FALLBACK = ["#332288", "#117733", "#999933", "#AA4499", "#88CCEE", "#DDCC77", "#CC6677", "#44AA99"]


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


def band_color(name: str, alpha: float = 0.18) -> str:
    """The algorithm's colour, translucent, for its confidence band."""
    c = style(name)["color"].lstrip("#")
    r, g, b = (int(c[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


#: the papers of the workbook and the algorithms each notebook draws (for the colour legend)
PAPERS: dict[str, tuple[str, ...]] = {
    "baselines": ("UCB1", "KL-UCB"),
    "01 Vernade, Cappé, Perchet 2017": ("D-UCB", "UD-UCB", "D-KLUCB", "UD-KLUCB", "Discarding UCB",
                                        "Discarding KL-UCB", "D-KLUCB (estimated CDF)",
                                        "UD-KLUCB (estimated geometric law)"),
    "02 Manegueu et al. 2020": ("Patient Bandits", "Adapt-Patient Bandits"),
    "03 Vernade et al. 2020": ("OTFLinUCB", "OTFLinTS", "LinUCB"),
    "04 Pike-Burke et al. 2018": ("ODAAF", "ODAAF-B", "ODAAF-V", "QPM-D", "Improved UCB"),
    "05 Thune et al. 2019": ("Exp3", "DEW", "Skipper", "Doubling"),
}
