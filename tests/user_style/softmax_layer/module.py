from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("batch", 8), "float32"), w: R.Tensor((8, 5), "float32")):
        with R.dataflow():
            p = R.nn.softmax(R.matmul(x, w), axis=-1)
            R.output(p)
        return p
