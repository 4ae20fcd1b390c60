from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def block(x: R.Tensor((2, 2), "float32"), w: R.Tensor((2, 2), "float32")):
        with R.dataflow():
            y = R.nn.relu(R.matmul(x, w))
            R.output(y)
        return y

    @R.function
    def main(x: R.Tensor((2, 2), "float32"), w: R.Tensor((2, 2), "float32")):
        cls = Module
        return cls.block(cls.block(x, w), R.permute_dims(w))
