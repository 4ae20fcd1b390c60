# passes: ConvertLayout
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def conv2d_nhwc_ohwi(x: R.Tensor((1, 8, 9, 3), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32")) -> R.Tensor((1, 4, 5, 4), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((1, 4, 5, 4), dtype="float32") = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="OHWI", out_layout="NHWC")
            R.output(y)
        return y

    @R.function
    def conv2d_nhwc_hwio(x: R.Tensor((2, 7, 7, 6), dtype="float32"), w: R.Tensor((3, 3, 3, 8), dtype="float32")) -> R.Tensor((2, 5, 5, 8), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((2, 5, 5, 8), dtype="float32") = R.nn.conv2d(x, w, groups=2, data_layout="NHWC", kernel_layout="HWIO", out_layout="NHWC")
            z: R.Tensor((2, 5, 5, 8), dtype="float32") = R.nn.relu(y)
            R.output(z)
        return z

    @R.function
    def conv2d_nhwc_to_nchw(x: R.Tensor((1, 6, 6, 3), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32")) -> R.Tensor((1, 4, 4, 4), dtype="float32"):
        y: R.Tensor((1, 4, 4, 4), dtype="float32") = R.nn.conv2d(x, w, data_layout="NHWC", kernel_layout="OIHW", out_layout="NCHW")
        return y

    @R.function
    def conv1d_nwc(x: R.Tensor((2, 10, 3), dtype="float32"), w: R.Tensor((3, 3, 5), dtype="float32")) -> R.Tensor((2, 8, 5), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((2, 8, 5), dtype="float32") = R.nn.conv1d(x, w, data_layout="NWC", kernel_layout="WIO", out_layout="NWC")
            R.output(y)
        return y

    @R.function
    def conv2d_transpose_nhwc(x: R.Tensor((1, 4, 4, 3), dtype="float32"), w: R.Tensor((3, 3, 3, 2), dtype="float32")) -> R.Tensor((1, 9, 9, 2), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((1, 9, 9, 2), dtype="float32") = R.nn.conv2d_transpose(x, w, strides=[2, 2], data_layout="NHWC", kernel_layout="IHWO", out_layout="NHWC")
            R.output(y)
        return y

    @R.function
    def max_pool2d_nhwc(x: R.Tensor((1, 8, 8, 4), dtype="float32")) -> R.Tensor((1, 4, 4, 4), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((1, 4, 4, 4), dtype="float32") = R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], layout="NHWC")
            R.output(y)
        return y

    @R.function
    def adaptive_avg_pool2d_nhwc(x: R.Tensor((1, 7, 7, 4), dtype="float32")) -> R.Tensor((1, 1, 1, 4), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((1, 1, 1, 4), dtype="float32") = R.nn.adaptive_avg_pool2d(x, output_size=[1, 1], layout="NHWC")
            R.output(y)
        return y

    @R.function
    def canonical_unchanged(x: R.Tensor((1, 3, 8, 8), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32")) -> R.Tensor((1, 4, 3, 3), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((1, 4, 6, 6), dtype="float32") = R.nn.conv2d(x, w, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW")
            z: R.Tensor((1, 4, 3, 3), dtype="float32") = R.nn.max_pool2d(y, pool_size=[2, 2], strides=[2, 2], layout="NCHW")
            R.output(z)
        return z

    @R.function
    def split_layout_of_unknown_shape_unchanged(x: R.Tensor(dtype="float32", ndim=5)) -> R.Tensor(dtype="float32", ndim=5):
        with R.dataflow():
            y: R.Tensor(dtype="float32", ndim=5) = R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], layout="NCHW4c")
            R.output(y)
        return y

    @R.function
    def split_layouts(x: R.Tensor((1, 2, 8, 8, 4), dtype="float32"), w: R.Tensor((3, 2, 3, 3, 4, 4), dtype="float32")) -> R.Tensor((1, 3, 3, 3, 4), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((1, 3, 6, 6, 4), dtype="float32") = R.nn.conv2d(x, w, data_layout="NCHW4c", kernel_layout="OIHW4i4o", out_layout="NCHW4c")
            z: R.Tensor((1, 3, 3, 3, 4), dtype="float32") = R.nn.max_pool2d(y, pool_size=[2, 2], strides=[2, 2], layout="NCHW4c")
            R.output(z)
        return z
