@I.ir_module
class Expected:
    @R.function
    def main(
        data: R.Tensor((1, 8, 8, 8, 3), dtype="float32"),
        kernel: R.Tensor((3, 3, 3, 8, 3), dtype="float32"),
    ) -> R.Tensor((1, 8, 8, 8, 8), dtype="float32"):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            gv: R.Tensor((1, 8, 8, 8, 8), dtype="float32") = R.nn.conv3d_transpose(
                data,
                kernel,
                strides=[1, 1, 1],
                padding=[1, 1, 1, 1, 1, 1],
                output_padding=[0, 0, 0],
                dilation=[1, 1, 1],
                groups=1,
                data_layout="NDHWC",
                kernel_layout="DHWOI",
                out_layout="NDHWC",
            )
            R.output(gv)
        return gv
