# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(output_grad: R.Tensor((2, 3, 3), dtype="float32"), x: R.Tensor((2, 3, 4), dtype="float32"), indices: R.Tensor((3,), dtype="int32")) -> R.Tensor((2, 3, 4), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((2, 3, 4), dtype="float32") = R.grad.take_backward(output_grad, x, indices, axis=-1, mode="")
            R.output(gv)
        return gv
