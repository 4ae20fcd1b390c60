# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32"), w: R.Tensor((4, 3), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor((n, 3), dtype="float32"):
        with R.dataflow():
            h: R.Tensor((n, 3), dtype="float32") = R.matmul(x, w, out_dtype=None)
            y: R.Tensor((n, 3), dtype="float32") = R.add(h, b)
            z: R.Tensor((n, 3), dtype="float32") = R.nn.relu(y)
            R.output(z)
        return z
