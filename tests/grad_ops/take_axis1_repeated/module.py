# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(output_grad: R.Tensor((2, 5, 3), dtype="float32"), x: R.Tensor((2, 4, 3), dtype="float32"), indices: R.Tensor((5,), dtype="int64")) -> R.Tensor((2, 4, 3), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((2, 4, 3), dtype="float32") = R.grad.take_backward(output_grad, x, indices, axis=1, mode="")
            R.output(gv)
        return gv
