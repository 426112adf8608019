"""Small example models shipped with the package (made at build time):
sigmoid.onnx (y = Sigmoid(x), x float [3, 4, 5]) and mul_1.onnx
(Y = X * [[1, 2], [3, 4], [5, 6]], X float [3, 2])."""

import os


def get_example(name):
    """The absolute path of the example model `name` (FileNotFoundError when there is none)."""
    this = os.path.abspath(os.path.dirname(__file__))
    full = os.path.join(this, name)
    if not os.path.exists(full):
        raise FileNotFoundError(f"Unable to find example '{name}'")
    return full
