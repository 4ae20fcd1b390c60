# passes: LegalizeOps, RaiseCallTIR, DeadCodeElimination
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 9, 9), dtype="float32"), w: R.Tensor((6, 2, 3, 3), dtype="float32"), wd: R.Tensor((4, 1, 3, 3), dtype="float32"), a: R.Tensor((n, 3, 8), dtype="float32"), b: R.Tensor((8, 5), dtype="float32"), bt: R.Tensor((5, 8), dtype="float32"), a1: R.Tensor((1, 3, 8), dtype="float32"), b3: R.Tensor((4, 8, 5), dtype="float32")) -> R.Tuple(R.Tensor((2, 6, 4, 3), dtype="float32"), R.Tensor((2, 4, 2, 2), dtype="float32"), R.Tensor((n, 3, 5), dtype="float32"), R.Tensor((n, 3, 5), dtype="float32"), R.Tensor((4, 3, 5), dtype="float32")):
        with R.dataflow():
            conv: R.Tensor((2, 6, 4, 3), dtype="float32") = R.nn.conv2d(x, w, strides=[2, 3], padding=[1, 2, 0, 1], dilation=[1, 2], groups=2, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
            dw: R.Tensor((2, 4, 2, 2), dtype="float32") = R.nn.conv2d(x, wd, strides=[3, 4], padding=[0, 0, 0, 0], dilation=[2, 1], groups=4, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="void")
            mm: R.Tensor((n, 3, 5), dtype="float32") = R.matmul(a, b, out_dtype="void")
            t: R.Tensor((8, 5), dtype="float32") = R.permute_dims(bt, axes=[1, 0])
            mt: R.Tensor((n, 3, 5), dtype="float32") = R.matmul(a, t, out_dtype="void")
            bc: R.Tensor((4, 3, 5), dtype="float32") = R.matmul(a1, b3, out_dtype="void")
            gv: R.Tuple(R.Tensor((2, 6, 4, 3), dtype="float32"), R.Tensor((2, 4, 2, 2), dtype="float32"), R.Tensor((n, 3, 5), dtype="float32"), R.Tensor((n, 3, 5), dtype="float32"), R.Tensor((4, 3, 5), dtype="float32")) = conv, dw, mm, mt, bc
            R.output(gv)
        return gv
