# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(output_grad: R.Tensor((2, 3), dtype="float32"), predictions: R.Tensor((2, 4, 3), dtype="float32"), targets: R.Tensor((2, 3), dtype="int64"), weights: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 4, 3), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((2, 4, 3), dtype="float32") = R.grad.nll_loss_backward(output_grad, predictions, targets, weights, reduction="none", ignore_index=3)
            R.output(gv)
        return gv
