# passes: ElideDropout, DeadCodeElimination
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def field0(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((2, 3), dtype="float32") = R.nn.relu(x)
            d: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")) = R.nn.dropout(a, rate=0.5)
            e: R.Tensor((2, 3), dtype="float32") = d[0]
            m: R.Tensor((2, 3), dtype="float32") = d[1]
            y: R.Tensor((2, 3), dtype="float32") = R.add(e, e)
            R.output(y)
        return y

    @R.function
    def mask_used(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            d: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")) = R.nn.dropout(x, rate=0.5)
            e: R.Tensor((2, 3), dtype="float32") = d[0]
            m: R.Tensor((2, 3), dtype="float32") = d[1]
            y: R.Tensor((2, 3), dtype="float32") = R.add(e, m)
            R.output(y)
        return y

    @R.function
    def block_output(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((2, 3), dtype="float32") = R.nn.relu(x)
            d: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")) = R.nn.dropout(a, rate=0.5)
            e: R.Tensor((2, 3), dtype="float32") = d[0]
            R.output(e)
        return e

    @R.function
    def read_in_a_later_block(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((2, 3), dtype="float32") = R.nn.relu(x)
            d = R.nn.dropout(a, rate=0.5)
            R.output(d)
        with R.dataflow():
            e: R.Tensor((2, 3), dtype="float32") = d[0]
            y: R.Tensor((2, 3), dtype="float32") = R.add(e, e)
            R.output(y)
        return y
