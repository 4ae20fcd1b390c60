# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 16), dtype="float32"), w: R.Tensor((16, 4), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((n, 4), dtype="float32") = R.matmul(x, w, out_dtype=None)
            lv1: R.Tensor((n, 4), dtype="float32") = R.add(lv, b)
            y: R.Tensor((n, 4), dtype="float32") = R.nn.relu(lv1)
            R.output(y)
        return y
