from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6), "float32"), b: R.Tensor((6,), "float32"), gamma: R.Tensor((6,), "float32"), beta: R.Tensor((6,), "float32")):
        with R.dataflow():
            y = R.nn.layer_norm(R.add(x, b), gamma, beta, axes=[-1])
            R.output(y)
        return y
