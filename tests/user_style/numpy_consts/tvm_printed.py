# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), i: R.Tensor((2, 3), dtype="int32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="int32")):
        w: R.Tensor((2, 3), dtype="float32") = metadata["ir.GenericConst"][0]
        b: R.Tensor((3,), dtype="float32") = metadata["ir.GenericConst"][1]
        k: R.Tensor((2, 3), dtype="int32") = metadata["ir.GenericConst"][2]
        z: R.Tensor((2, 3), dtype="float32") = metadata["ir.GenericConst"][3]
        o: R.Tensor((3,), dtype="float32") = metadata["ir.GenericConst"][4]
        f: R.Tensor((2, 3), dtype="int32") = metadata["ir.GenericConst"][5]
        t: R.Tensor((3,), dtype="int32") = metadata["ir.GenericConst"][6]
        s: R.Tensor((), dtype="float32") = R.const(0.5, "float32")
        gv8: R.Tensor((2, 3), dtype="float32") = R.multiply(x, w)
        gv9: R.Tensor((2, 3), dtype="float32") = R.add(gv8, b)
        gv10: R.Tensor((2, 3), dtype="float32") = R.add(gv9, z)
        gv11: R.Tensor((3,), dtype="float32") = R.multiply(o, s)
        y: R.Tensor((2, 3), dtype="float32") = R.multiply(gv10, gv11)
        gv13: R.Tensor((2, 3), dtype="int32") = R.multiply(i, k)
        gv14: R.Tensor((2, 3), dtype="int32") = R.add(gv13, f)
        j: R.Tensor((2, 3), dtype="int32") = R.add(gv14, t)
        return (y, j)

# Metadata omitted. Use show_meta=True in script() method to show it.
