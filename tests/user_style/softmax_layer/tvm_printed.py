# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

batch = TypeVar("batch")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((batch, 8), dtype="float32"), w: R.Tensor((8, 5), dtype="float32")) -> R.Tensor((batch, 5), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((batch, 5), dtype="float32") = R.matmul(x, w, out_dtype=None)
            p: R.Tensor((batch, 5), dtype="float32") = R.nn.softmax(lv, axis=-1)
            R.output(p)
        return p
