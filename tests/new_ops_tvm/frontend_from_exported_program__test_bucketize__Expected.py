@tvm.script.ir_module
class Expected:
    @R.function
    def main(
        input: R.Tensor((20,), dtype="int64"), boundaries: R.Tensor((10,), dtype="int64")
    ) -> R.Tuple(R.Tensor((20,), dtype="int64")):
        with R.dataflow():
            lv: R.Tensor((20,), dtype="int64") = R.bucketize(
                input, boundaries, out_int32=False, right=False
            )
            gv: R.Tuple(R.Tensor((20,), dtype="int64")) = (lv,)
            R.output(gv)
        return gv
