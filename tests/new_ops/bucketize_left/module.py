# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 3), dtype="int64"):
        with R.dataflow():
            gv: R.Tensor((2, 3), dtype="int64") = R.bucketize(x, b, out_int32=False, right=False)
            R.output(gv)
        return gv
