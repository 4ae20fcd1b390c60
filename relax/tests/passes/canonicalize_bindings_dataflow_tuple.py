# passes: CanonicalizeBindings
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        with R.dataflow():
            lv0: R.Tensor((3,), dtype="float32") = R.exp(x)
            gv: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = (lv0, x)
            lv1: R.Tensor((3,), dtype="float32") = gv[0]
            lv2: R.Tensor((3,), dtype="float32") = R.add(lv1, lv1)
            R.output(gv, lv2)
        with R.dataflow():
            lv3: R.Tensor((3,), dtype="float32") = gv[0]
            lv4: R.Tensor((3,), dtype="float32") = gv[1]
            lv5: R.Tensor((3,), dtype="float32") = R.add(lv3, lv4)
            lv6: R.Tensor((3,), dtype="float32") = R.add(lv5, lv2)
            R.output(lv6)
        return lv6
