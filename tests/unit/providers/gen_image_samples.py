#!/usr/bin/env python3
"""Writes image_samples.inc: a 4x3 RGB image encoded by Pillow in each format
ImageDecoder reads, with Pillow's decoded RGB and "L" pixels (what the ONNX
reference implementation of ImageDecoder returns)."""
import io
import textwrap

import numpy as np
from PIL import Image

FORMATS = [("JPEG", "Jpeg", {"quality": 90}), ("PNG", "Png", {}), ("TIFF", "Tiff", {}),
           ("WEBP", "Webp", {"lossless": True}), ("JPEG2000", "Jpeg2000", {"irreversible": False}),
           ("BMP", "Bmp", {}), ("PPM", "Ppm", {})]


def carr(name, data):
    s = ", ".join(str(int(x)) for x in data)
    body = textwrap.fill(s, 96, initial_indent="    ", subsequent_indent="    ")
    return f"const std::vector<uint8_t> {name} = {{\n{body}}};\n"


def main():
    rng = np.random.RandomState(3)
    im = Image.fromarray((rng.rand(3, 4, 3) * 255).astype(np.uint8), "RGB")
    with open("image_samples.inc", "w") as f:
        f.write("// 4x3 RGB samples encoded by Pillow 9.4 (python3-pil), with Pillow's decoded\n"
                "// RGB and \"L\" (grey) pixels: the reference ImageDecoder's behaviour.\n"
                "// Regenerate with tests/unit/providers/gen_image_samples.py.\n")
        for fmt, name, kw in FORMATS:
            b = io.BytesIO()
            im.save(b, fmt, **kw)
            data = b.getvalue()
            f.write(carr("k" + name, data))
            f.write(carr("k" + name + "Rgb", np.array(Image.open(io.BytesIO(data)).convert("RGB")).flatten()))
            f.write(carr("k" + name + "Gray", np.array(Image.open(io.BytesIO(data)).convert("L")).flatten()))


if __name__ == "__main__":
    main()
