@I.ir_module
class Expected:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="int32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            gv: R.Tensor((2, 3), dtype="int32") = R.bucketize(
                x, R.const([0.0, 1.0, 3.0], "float32"), out_int32=True, right=False
            )
            R.output(gv)
        return gv
