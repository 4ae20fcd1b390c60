# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((7,), dtype="int64"), b: R.Tensor((3,), dtype="int64")) -> R.Tensor((7,), dtype="int32"):
        with R.dataflow():
            gv: R.Tensor((7,), dtype="int32") = R.bucketize(x, b, out_int32=True, right=True)
            R.output(gv)
        return gv
