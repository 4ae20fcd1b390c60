# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(output_grad: R.Tensor((2, 3, 4, 3), dtype="float32"), data: R.Tensor((2, 5, 6, 3), dtype="float32")) -> R.Tensor((2, 5, 6, 3), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((2, 5, 6, 3), dtype="float32") = R.grad.max_pool2d_backward(output_grad, data, pool_size=[3, 2], strides=[2, 2], dilation=[1, 1], padding=[1, 1, 0, 0], ceil_mode=True, count_include_pad=False, layout="NHWC", out_layout="NHWC")
            R.output(gv)
        return gv
