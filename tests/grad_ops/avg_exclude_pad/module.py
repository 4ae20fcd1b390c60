# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(output_grad: R.Tensor((1, 2, 5, 5), dtype="float32"), data: R.Tensor((1, 2, 4, 5), dtype="float32")) -> R.Tensor((1, 2, 4, 5), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((1, 2, 4, 5), dtype="float32") = R.grad.avg_pool2d_backward(output_grad, data, pool_size=[2, 3], strides=[1, 1], dilation=[1, 1], padding=[1, 2, 1, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
            R.output(gv)
        return gv
