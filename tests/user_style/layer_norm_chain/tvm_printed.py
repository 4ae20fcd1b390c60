# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6), dtype="float32"), b: R.Tensor((6,), dtype="float32"), gamma: R.Tensor((6,), dtype="float32"), beta: R.Tensor((6,), dtype="float32")) -> R.Tensor((2, 6), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 6), dtype="float32") = R.add(x, b)
            y: R.Tensor((2, 6), dtype="float32") = R.nn.layer_norm(lv, gamma, beta, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)
            R.output(y)
        return y
