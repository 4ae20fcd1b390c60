# passes: DispatchLibrary
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def mlp(x: R.Tensor((n, 3), dtype="float32"), w: R.Tensor((4, 3), dtype="float32"), b: R.Tensor((4,), dtype="float32"), r: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        with R.dataflow():
            wt: R.Tensor((3, 4), dtype="float32") = R.permute_dims(w, axes=None)
            h: R.Tensor((n, 4), dtype="float32") = R.matmul(x, wt, out_dtype=None)
            h1: R.Tensor((n, 4), dtype="float32") = R.add(h, b)
            h2: R.Tensor((n, 4), dtype="float32") = R.add(r, h1)
            h3: R.Tensor((n, 4), dtype="float32") = R.nn.gelu(h2)
            R.output(h3)
        return h3

    @R.function
    def shared(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor((3, 4), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 4), dtype="float32")):
        with R.dataflow():
            h: R.Tensor((2, 4), dtype="float32") = R.matmul(x, w, out_dtype=None)
            h1: R.Tensor((2, 4), dtype="float32") = R.add(h, b)
            h2: R.Tensor((2, 4), dtype="float32") = R.nn.relu(h1)
            gv: R.Tuple(R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 4), dtype="float32")) = (h, h2)
            R.output(gv)
        return gv

    @R.function
    def conv(x: R.Tensor((1, 3, 8, 8), dtype="float32"), w: R.Tensor((6, 3, 3, 3), dtype="float32"), b: R.Tensor((6,), dtype="float32")) -> R.Tensor((1, 6, 4, 4), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 6, 4, 4), dtype="float32") = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            b4: R.Tensor((1, 6, 1, 1), dtype="float32") = R.reshape(b, R.shape([1, 6, 1, 1]))
            c1: R.Tensor((1, 6, 4, 4), dtype="float32") = R.add(c, b4)
            c2: R.Tensor((1, 6, 4, 4), dtype="float32") = R.nn.relu(c1)
            R.output(c2)
        return c2

    @R.function
    def int_and_const(x: R.Tensor((2, 3), dtype="int32"), w: R.Tensor((3, 4), dtype="int32"), y: R.Tensor((3, 4), dtype="float32"), v: R.Tensor((4, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 4), dtype="int32"), R.Tensor((4, 4), dtype="float32")):
        with R.dataflow():
            h: R.Tensor((2, 4), dtype="int32") = R.matmul(x, w, out_dtype=None)
            s: R.Tensor((4, 4), dtype="float32") = R.matmul(v, y, out_dtype="float32")
            big: R.Tensor((4, 4), dtype="float32") = R.add(s, R.const(1.0, "float32"))
            gv: R.Tuple(R.Tensor((2, 4), dtype="int32"), R.Tensor((4, 4), dtype="float32")) = (h, big)
            R.output(gv)
        return gv
