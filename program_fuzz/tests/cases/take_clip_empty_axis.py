# opfuzz: take, seed 1112
# arg: int64 [2, 0, 4]
# arg: int64 [2, 4] in -1..1
# inputs: seed 2783787308126326, special
# compare: exact
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 0, 4), dtype="int64"), i: R.Tensor((2, 4), dtype="int64")):
        with R.dataflow():
            t0 = R.take(x, i, axis=-2, mode="clip")
            y = t0
            R.output(y)
        return y
