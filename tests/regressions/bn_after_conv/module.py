# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(data_0: R.Tensor((1, 3, 12, 12), dtype="float32")) -> R.Tensor((1, 8, 12, 12), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, 8, 12, 12), dtype="float32") = R.nn.conv2d(data_0, metadata["ir.GenericConst"][0], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            lv1: R.Tuple(R.Tensor((1, 8, 12, 12), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")) = R.nn.batch_norm(lv, metadata["ir.GenericConst"][1], metadata["ir.GenericConst"][2], metadata["ir.GenericConst"][3], metadata["ir.GenericConst"][4], axis=1, epsilon=9.9999997473787516e-06, center=True, scale=True, momentum=0.90000000000000002, training=False)
            lv2: R.Tensor((1, 8, 12, 12), dtype="float32") = lv1[0]
            gv: R.Tensor((1, 8, 12, 12), dtype="float32") = lv2
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
