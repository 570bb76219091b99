"""The tray icon, drawn with Pillow: its colour says the vault's state at a glance.

A rounded badge with a white 'V' (a vault door's hinge line under it), outlined so it reads on
light and dark panels alike; green when healthy, amber when some notes are broken or there are
no memory records yet, grey when the vault cannot be read; grey with two bars instead of the
'V' while recall is paused; a blue dot for a moment after a client recalls.
"""

from __future__ import annotations

from typing import Literal

from PIL import Image, ImageDraw

# What the icon can show: the vault's health, amber for no records yet, and paused.
IconStatus = Literal["ok", "degraded", "empty", "unavailable", "paused"]
COLOURS: dict[IconStatus, tuple[int, int, int]] = {
    "ok": (46, 158, 91),
    "degraded": (224, 161, 0),
    "empty": (224, 161, 0),
    "unavailable": (128, 134, 143),
    "paused": (128, 134, 143),
}
RECALL_DOT = (47, 128, 237)
_DRAW_AT = 256


def render_icon(status: IconStatus, recalling: bool = False, size: int = 64) -> Image.Image:
    """The icon at `size` pixels, drawn large and scaled down so small sizes stay crisp."""
    fill = COLOURS[status]
    image = Image.new("RGBA", (_DRAW_AT, _DRAW_AT), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    # A dark rim then a light rim: visible on white panels and on black ones.
    draw.rounded_rectangle((8, 8, 248, 248), radius=56, fill=(20, 24, 28, 255))
    draw.rounded_rectangle((18, 18, 238, 238), radius=48, fill=(255, 255, 255, 255))
    draw.rounded_rectangle((28, 28, 228, 228), radius=40, fill=(*fill, 255))
    if status == "paused":  # the pause sign: recall answers nothing until resumed
        draw.rounded_rectangle((76, 62, 112, 194), radius=8, fill="white")
        draw.rounded_rectangle((144, 62, 180, 194), radius=8, fill="white")
    else:
        draw.polygon([(70, 62), (104, 62), (128, 150), (152, 62), (186, 62), (144, 190), (112, 190)], fill="white")
    draw.rectangle((72, 204, 184, 214), fill=(255, 255, 255, 220))
    if recalling:
        draw.ellipse((160, 0, 256, 96), fill=(255, 255, 255, 255))
        draw.ellipse((170, 10, 246, 86), fill=(*RECALL_DOT, 255))
    return image.resize((size, size), Image.Resampling.LANCZOS)
