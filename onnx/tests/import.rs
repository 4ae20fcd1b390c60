//! The import API on models built here: symbolic input dimensions, `keep_params_in_input`,
//! external data, and the errors for unsupported operators and attributes.

use prost::Message;
use relaxjit::{Engine, Tensor, Value};
use relaxjit_onnx::proto::{
    AttributeProto, Dimension, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    StringStringEntryProto, TensorProto, TensorShapeProto, TypeProto, TypeProtoTensor,
    ValueInfoProto, attribute_type,
};
use relaxjit_onnx::{ImportOptions, import_bytes, import_file};

fn value_info(name: &str, dims: &[Result<i64, &str>]) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            tensor_type: Some(TypeProtoTensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|d| match d {
                            Ok(v) => Dimension {
                                dim_value: Some(*v),
                                dim_param: None,
                            },
                            Err(p) => Dimension {
                                dim_value: None,
                                dim_param: Some((*p).into()),
                            },
                        })
                        .collect(),
                }),
            }),
            ..Default::default()
        }),
    }
}

fn node(op: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: Some(name.into()),
        op_type: Some(op.into()),
        ..Default::default()
    }
}

fn float_tensor(name: &str, dims: &[i64], data: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(1),
        float_data: data.to_vec(),
        ..Default::default()
    }
}

fn model(graph: GraphProto, opset: i64) -> Vec<u8> {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(opset),
        }],
        graph: Some(graph),
        ..Default::default()
    }
    .encode_to_vec()
}

fn i64_tensor(name: &str, dims: &[i64], data: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(7),
        int64_data: data.to_vec(),
        ..Default::default()
    }
}

/// `y = relu(x + b)` with `x: (N, 3)` and initializer `b`.
fn add_relu() -> GraphProto {
    GraphProto {
        node: vec![
            node("Add", "add", &["x", "b"], &["s"]),
            node("Relu", "relu", &["s"], &["y"]),
        ],
        initializer: vec![float_tensor("b", &[3], &[1.0, -1.0, 0.5])],
        input: vec![value_info("x", &[Err("N"), Ok(3)])],
        output: vec![value_info("y", &[Err("N"), Ok(3)])],
        ..Default::default()
    }
}

fn run(module: &relaxjit::relax::IRModule, args: Vec<Value>) -> Vec<f32> {
    let out = Engine::default()
        .compile(module)
        .unwrap()
        .run("main", &args)
        .unwrap();
    out.as_tensor().unwrap().to_vec().unwrap()
}

#[test]
fn dim_params_become_one_symbolic_dimension() {
    let m = import_bytes(&model(add_relu(), 13), &ImportOptions::default()).unwrap();
    let text = relaxjit::relax::print_module(&m.module);
    assert!(
        text.contains("def main(x: R.Tensor((N, 3), dtype=\"float32\")) -> R.Tensor((N, 3), dtype=\"float32\")"),
        "{text}"
    );
    assert_eq!(m.inputs, vec![("x".to_string(), "x".to_string())]);
    assert_eq!(m.outputs, vec!["y".to_string()]);
    // The same compiled function runs at two batch sizes.
    for n in [1, 4] {
        let x: Vec<f32> = (0..3 * n).map(|i| i as f32 - 2.0).collect();
        let y = run(
            &m.module,
            vec![Tensor::from_slice(&[n, 3], &x).unwrap().into()],
        );
        let want: Vec<f32> = x
            .iter()
            .enumerate()
            .map(|(i, v)| (v + [1.0, -1.0, 0.5][i % 3]).max(0.0))
            .collect();
        assert_eq!(y, want);
    }
}

#[test]
fn keep_params_in_input_makes_initializers_parameters() {
    let options = ImportOptions {
        keep_params_in_input: true,
        ..ImportOptions::default()
    };
    let m = import_bytes(&model(add_relu(), 13), &options).unwrap();
    let main = m.module.relax_function("main").unwrap();
    let names: Vec<&str> = main.params.iter().map(|p| p.name()).collect();
    assert_eq!(names, ["x", "b"]);
    assert_eq!(m.params.len(), 1);
    assert_eq!(m.params[0].0, "b");
    let x = Tensor::from_slice(&[1, 3], &[0.0f32, 0.0, 0.0]).unwrap();
    let y = run(&m.module, vec![x.into(), m.params[0].1.clone().into()]);
    assert_eq!(y, [1.0, 0.0, 0.5]);
}

#[test]
fn external_data_is_read_beside_the_model() {
    let dir = std::env::temp_dir().join(format!("relaxjit-onnx-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bytes: Vec<u8> = [1.0f32, -1.0, 0.5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(dir.join("weights.bin"), &bytes).unwrap();
    let mut g = add_relu();
    g.initializer = vec![TensorProto {
        name: Some("b".into()),
        dims: vec![3],
        data_type: Some(1),
        data_location: Some(1),
        external_data: vec![StringStringEntryProto {
            key: Some("location".into()),
            value: Some("weights.bin".into()),
        }],
        ..Default::default()
    }];
    let path = dir.join("model.onnx");
    std::fs::write(&path, model(g.clone(), 13)).unwrap();
    let m = import_file(&path, &ImportOptions::default()).unwrap();
    let x = Tensor::from_slice(&[1, 3], &[0.0f32, 0.0, 0.0]).unwrap();
    assert_eq!(run(&m.module, vec![x.into()]), [1.0, 0.0, 0.5]);
    // From bytes, the folder is unknown: the error says how to import instead.
    let e = import_bytes(&model(g, 13), &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("weights.bin") && e.contains("from its path"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_name_the_operator_node_and_opset() {
    let mut g = add_relu();
    g.node[1] = node("MaxRoiPool", "pool_1", &["s"], &["y"]);
    let e = import_bytes(&model(g, 13), &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "unsupported: op `MaxRoiPool` (node `pool_1`, opset 13): operator is not supported"
    );

    // An attribute no converter reads is an error, not silently ignored.
    let mut g = add_relu();
    g.node[1].attribute.push(AttributeProto {
        name: Some("frobnicate".into()),
        r#type: Some(attribute_type::INT),
        i: Some(1),
        ..Default::default()
    });
    let e = import_bytes(&model(g, 13), &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "unsupported: op `Relu` (node `relu`, opset 13): attribute `frobnicate` is not supported"
    );

    let e = import_bytes(&model(add_relu(), 22), &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("opset 22"), "{e}");

    let e = import_bytes(b"\xff\xff\xff", &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("cannot decode ModelProto"), "{e}");
}

#[test]
fn engine_compiles_onnx_from_bytes_and_paths() {
    let bytes = model(add_relu(), 13);
    let compiled = Engine::default()
        .compile_onnx(&bytes, &ImportOptions::default())
        .unwrap();
    let x = Tensor::from_slice(&[1, 3], &[1.0f32, 1.0, 1.0]).unwrap();
    let y = compiled.run("main", &[x.into()]).unwrap();
    assert_eq!(
        y.as_tensor().unwrap().to_vec::<f32>().unwrap(),
        [2.0, 0.0, 1.5]
    );
    let e = Engine::default()
        .compile_onnx(
            std::path::Path::new("no/such/model.onnx"),
            &ImportOptions::default(),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("no/such/model.onnx"), "{e}");
}

/// `y = x + fill(1.5) + fill(2.0)`, each fill a `ConstantOfShape` of a constant (2, 3) shape.
fn two_fills() -> GraphProto {
    let fill = |name: &str, out: &str, v: f32| NodeProto {
        attribute: vec![AttributeProto {
            name: Some("value".into()),
            r#type: Some(attribute_type::TENSOR),
            t: Some(float_tensor("v", &[1], &[v])),
            ..Default::default()
        }],
        ..node("ConstantOfShape", name, &["shape"], &[out])
    };
    GraphProto {
        node: vec![
            fill("fill_a", "a", 1.5),
            fill("fill_b", "b", 2.0),
            node("Add", "add_a", &["x", "a"], &["s"]),
            node("Add", "add_b", &["s", "b"], &["y"]),
        ],
        initializer: vec![TensorProto {
            name: Some("shape".into()),
            dims: vec![2],
            data_type: Some(7),
            int64_data: vec![2, 3],
            ..Default::default()
        }],
        input: vec![value_info("x", &[Ok(2), Ok(3)])],
        output: vec![value_info("y", &[Ok(2), Ok(3)])],
        ..Default::default()
    }
}

#[test]
fn constant_fills_stay_within_the_import_budget() {
    let bytes = model(two_fills(), 13);
    let x: Vec<f32> = (0..6).map(|i| i as f32).collect();
    let want: Vec<f32> = x.iter().map(|v| v + 3.5).collect();
    // Each fill is 24 bytes: a budget of 24 folds the first into a constant, and the second is
    // filled at run time; the answer is the same either way.
    for (budget, run_time_fills) in [(usize::MAX, 0), (24, 1), (0, 2)] {
        let options = ImportOptions {
            constant_fill_budget: budget,
            ..ImportOptions::default()
        };
        let m = import_bytes(&bytes, &options).unwrap();
        let text = relaxjit::relax::print_module(&m.module);
        assert_eq!(
            text.matches("R.full(").count(),
            run_time_fills,
            "budget {budget}:\n{text}"
        );
        let y = run(
            &m.module,
            vec![Tensor::from_slice(&[2, 3], &x).unwrap().into()],
        );
        assert_eq!(y, want, "budget {budget}");
    }
}

/// Nodes whose inputs or attributes contradict each other are errors naming the node, not
/// panics or runaway imports (each was found by mutating the backend models).
#[test]
fn malformed_nodes_are_errors_naming_them() {
    let int_attr = |name: &str, v: i64| AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_type::INT),
        i: Some(v),
        ..Default::default()
    };
    let x = || value_info("x", &[Ok(1), Ok(3), Ok(4), Ok(4)]);
    let cases: Vec<(GraphProto, i64, &str)> = vec![
        // A convolution weight of rank 1 for a 4-D input (indexed its kernel dims past the end).
        (
            GraphProto {
                node: vec![node("Conv", "conv", &["x", "w"], &["y"])],
                initializer: vec![float_tensor("w", &[3], &[1.0, 2.0, 3.0])],
                input: vec![x()],
                output: vec![value_info("y", &[])],
                ..Default::default()
            },
            13,
            "a weight of shape [3] for an input of rank 4",
        ),
        // A 2^31-element shape read at run time (made 2^31 symbolic dimensions, for minutes).
        (
            GraphProto {
                node: vec![node("Expand", "expand", &["x", "shape"], &["y"])],
                input: vec![x(), {
                    let mut s = value_info("shape", &[Ok(1 << 31)]);
                    let tt = s.r#type.as_mut().unwrap().tensor_type.as_mut().unwrap();
                    tt.elem_type = Some(7);
                    s
                }],
                output: vec![value_info("y", &[])],
                ..Default::default()
            },
            13,
            "a shape input of 2147483648 elements",
        ),
        // num_outputs that is not the node's number of outputs (a negative one split into an
        // empty list of sizes).
        (
            GraphProto {
                node: vec![NodeProto {
                    attribute: vec![int_attr("num_outputs", -1), int_attr("axis", 2)],
                    ..node("Split", "split", &["x"], &["y", "z"])
                }],
                input: vec![x()],
                output: vec![value_info("y", &[]), value_info("z", &[])],
                ..Default::default()
            },
            18,
            "num_outputs is -1 but the node has 2 outputs",
        ),
        // Range bounds that are empty tensors instead of scalars.
        (
            GraphProto {
                node: vec![node("Range", "range", &["a", "b", "d"], &["y"])],
                initializer: vec![
                    i64_tensor("a", &[0], &[]),
                    i64_tensor("b", &[], &[5]),
                    i64_tensor("d", &[], &[1]),
                ],
                output: vec![value_info("y", &[])],
                ..Default::default()
            },
            13,
            "start, limit and delta must be scalars, got 0, 1 and 1 elements",
        ),
        // Reflect padding by 2^31 - 1 (an index map of it once took 16 GB at import); onnxruntime
        // requires reflect pads shorter than the axis.
        (
            GraphProto {
                node: vec![NodeProto {
                    attribute: vec![
                        AttributeProto {
                            name: Some("mode".into()),
                            r#type: Some(attribute_type::STRING),
                            s: Some(b"reflect".to_vec()),
                            ..Default::default()
                        },
                        AttributeProto {
                            name: Some("pads".into()),
                            r#type: Some(attribute_type::INTS),
                            ints: vec![0, 0, 0, 0, 0, (1 << 31) - 1, 0, 0],
                            ..Default::default()
                        },
                    ],
                    ..node("Pad", "pad", &["x"], &["y"])
                }],
                input: vec![x()],
                output: vec![value_info("y", &[])],
                ..Default::default()
            },
            2,
            "reflect padding of (0, 2147483647) along axis 1 of extent 3: each pad must be less than the extent",
        ),
    ];
    // Edge, wrap and reflect padding of an axis without elements (edge clamped its index map
    // to `0..=-1` and panicked; wrap took a remainder by 0).
    let pad_empty = |mode: &str, opset: i64| {
        let pads = vec![0, 0, 0, 3, 0, 0, 0, 2];
        let mode_attr = AttributeProto {
            name: Some("mode".into()),
            r#type: Some(attribute_type::STRING),
            s: Some(mode.as_bytes().to_vec()),
            ..Default::default()
        };
        // From opset 11 the pads are an input.
        let (attribute, inputs, initializer) = if opset < 11 {
            let pads_attr = AttributeProto {
                name: Some("pads".into()),
                r#type: Some(attribute_type::INTS),
                ints: pads,
                ..Default::default()
            };
            (vec![mode_attr, pads_attr], vec!["x"], vec![])
        } else {
            (
                vec![mode_attr],
                vec!["x", "pads"],
                vec![i64_tensor("pads", &[8], &pads)],
            )
        };
        let graph = GraphProto {
            node: vec![NodeProto {
                attribute,
                ..node("Pad", "pad", &inputs, &["y"])
            }],
            initializer,
            input: vec![value_info("x", &[Ok(2), Ok(3), Ok(4), Ok(0)])],
            output: vec![value_info("y", &[])],
            ..Default::default()
        };
        (graph, opset)
    };
    let cases = cases
        .into_iter()
        .map(|(graph, opset, want)| (graph, opset, want.to_string()))
        .chain(
            [("edge", 2), ("reflect", 13), ("wrap", 19)].map(|(mode, opset)| {
                let (graph, opset) = pad_empty(mode, opset);
                let want = format!("{mode} padding of axis 3, which has no elements");
                (graph, opset, want)
            }),
        )
        // Resizing an axis without elements to a non-empty one (its index map clamped to
        // `0..=-1` and panicked).
        .chain(["nearest", "linear"].map(|mode| {
            let graph = GraphProto {
                node: vec![NodeProto {
                    attribute: vec![AttributeProto {
                        name: Some("mode".into()),
                        r#type: Some(attribute_type::STRING),
                        s: Some(mode.as_bytes().to_vec()),
                        ..Default::default()
                    }],
                    ..node("Resize", "resize", &["x", "", "", "sizes"], &["y"])
                }],
                initializer: vec![i64_tensor("sizes", &[4], &[1, 1, 3, 8])],
                input: vec![value_info("x", &[Ok(1), Ok(1), Ok(0), Ok(4)])],
                output: vec![value_info("y", &[])],
                ..Default::default()
            };
            let want = "resizing axis 2, which has no elements, to 3 elements".to_string();
            (graph, 13, want)
        }))
        // Resizing to 2^40 elements (precomputed 2^40 indices for minutes) or to a negative
        // size.
        .chain(
            [
                (
                    "nearest",
                    1 << 40,
                    "needs 8796093022208 bytes of precomputed indices",
                ),
                (
                    "linear",
                    1 << 40,
                    "needs 26388279066624 bytes of precomputed indices",
                ),
                ("nearest", -2, "resizing axis 3 of extent 4 to -2 elements"),
            ]
            .map(|(mode, size, want)| {
                let graph = GraphProto {
                    node: vec![NodeProto {
                        attribute: vec![AttributeProto {
                            name: Some("mode".into()),
                            r#type: Some(attribute_type::STRING),
                            s: Some(mode.as_bytes().to_vec()),
                            ..Default::default()
                        }],
                        ..node("Resize", "resize", &["x", "", "", "sizes"], &["y"])
                    }],
                    initializer: vec![i64_tensor("sizes", &[4], &[1, 1, 4, size])],
                    input: vec![x()],
                    output: vec![value_info("y", &[])],
                    ..Default::default()
                };
                (graph, 13, want.to_string())
            }),
        );
    for (graph, opset, want) in cases {
        let e = import_bytes(&model(graph, opset), &ImportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains(&want), "want `{want}` in: {e}");
    }
}

/// A Slice of an axis without elements is empty, whatever its bounds and direction (a
/// backward one clamped its start to `0..=-1` and panicked).
#[test]
fn slices_of_an_empty_axis_are_empty() {
    for (start, end, step) in [
        (-1, -100, -1),
        (0, 5, 1),
        (5, 0, -2),
        (i64::MAX, i64::MIN, -1),
    ] {
        let ints = |name: &str, v: i64| TensorProto {
            name: Some(name.into()),
            dims: vec![1],
            data_type: Some(7),
            int64_data: vec![v],
            ..Default::default()
        };
        let graph = GraphProto {
            node: vec![node(
                "Slice",
                "slice",
                &["x", "starts", "ends", "axes", "steps"],
                &["y"],
            )],
            initializer: vec![
                ints("starts", start),
                ints("ends", end),
                ints("axes", 1),
                ints("steps", step),
            ],
            input: vec![value_info("x", &[Ok(3), Ok(0)])],
            output: vec![value_info("y", &[])],
            ..Default::default()
        };
        let m = import_bytes(&model(graph, 13), &ImportOptions::default())
            .unwrap_or_else(|e| panic!("slice {start}:{end}:{step}: {e}"));
        let x = Tensor::from_slice::<f32>(&[3, 0], &[]).unwrap();
        let y = Engine::default()
            .compile(&m.module)
            .unwrap()
            .run("main", &[x.into()])
            .unwrap_or_else(|e| panic!("slice {start}:{end}:{step}: {e}"));
        assert_eq!(
            y.as_tensor().unwrap().shape(),
            [3, 0],
            "slice {start}:{end}:{step}"
        );
    }
}

/// Gather with indices known only at run time: negative ones count from the end of the axis,
/// as in onnxruntime, and one outside the axis is an error (it used to wrap around silently).
#[test]
fn run_time_gather_indices_count_from_the_end_and_are_checked() {
    let mut indices = value_info("i", &[Ok(2)]);
    if let Some(t) = indices.r#type.as_mut().and_then(|t| t.tensor_type.as_mut()) {
        t.elem_type = Some(7);
    }
    let graph = GraphProto {
        node: vec![node("Gather", "gather", &["x", "i"], &["y"])],
        input: vec![value_info("x", &[Ok(4), Ok(3)]), indices],
        output: vec![value_info("y", &[Ok(2), Ok(3)])],
        ..Default::default()
    };
    let m = import_bytes(&model(graph, 13), &ImportOptions::default()).unwrap();
    let compiled = Engine::default().compile(&m.module).unwrap();
    let data: Vec<f32> = (0..12).map(|v| v as f32).collect();
    let x = || -> Value { Tensor::from_slice(&[4, 3], &data).unwrap().into() };
    let i = |v: [i64; 2]| -> Value { Tensor::from_slice(&[2], &v).unwrap().into() };
    let y = compiled.run("main", &[x(), i([-1, 1])]).unwrap();
    assert_eq!(
        y.as_tensor().unwrap().to_vec::<f32>().unwrap(),
        [9.0, 10.0, 11.0, 3.0, 4.0, 5.0]
    );
    for bad in [[4, 0], [0, -5]] {
        match compiled.run("main", &[x(), i(bad)]) {
            Err(e) => assert!(e.to_string().contains("out of bounds"), "{bad:?}: {e}"),
            Ok(v) => panic!("indices {bad:?}: want an error, got {v:?}"),
        }
    }
}

/// Inputs and attributes the converters of DepthToSpace, OneHot, GatherND, GroupNormalization
/// and the contrib domain check: each an error naming the node, never a panic.
#[test]
fn checked_forms_of_the_indexing_and_contrib_operators() {
    let int_attr = |name: &str, v: i64| AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_type::INT),
        i: Some(v),
        ..Default::default()
    };
    let with = |n: NodeProto, attrs: Vec<AttributeProto>| NodeProto {
        attribute: attrs,
        ..n
    };
    let i64_tensor = |name: &str, dims: &[i64], data: &[i64]| TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(7),
        int64_data: data.to_vec(),
        ..Default::default()
    };
    let graph = |n: NodeProto, inits: Vec<TensorProto>, x: &[i64]| GraphProto {
        node: vec![n],
        initializer: inits,
        input: vec![value_info(
            "x",
            &x.iter().map(|&d| Ok(d)).collect::<Vec<_>>(),
        )],
        output: vec![value_info("y", &[])],
        ..Default::default()
    };
    let cases = vec![
        (
            graph(
                with(
                    node("DepthToSpace", "d2s", &["x"], &["y"]),
                    vec![int_attr("blocksize", 2)],
                ),
                vec![],
                &[1, 6, 2, 2],
            ),
            "op `DepthToSpace` (node `d2s`, opset 13): the channel count 6 is not a multiple of 4",
        ),
        (
            graph(
                node("SpaceToDepth", "s2d", &["x"], &["y"]),
                vec![],
                &[1, 6, 2, 2],
            ),
            "attribute `blocksize` is missing",
        ),
        (
            graph(
                node("OneHot", "oh", &["i", "d", "v"], &["y"]),
                vec![
                    i64_tensor("i", &[2], &[0, 1]),
                    i64_tensor("d", &[], &[3]),
                    float_tensor("v", &[3], &[0.0, 1.0, 2.0]),
                ],
                &[3],
            ),
            "values has 3 elements (off and on values are two)",
        ),
        (
            graph(
                with(
                    node("GatherND", "gnd", &["x", "i"], &["y"]),
                    vec![int_attr("batch_dims", 2)],
                ),
                vec![i64_tensor("i", &[2, 1], &[0, 1])],
                &[3, 4],
            ),
            "batch_dims 2 is outside [0, min(rank of data 2, rank of indices 2))",
        ),
        (
            graph(
                with(
                    node("GroupNormalization", "gn", &["x", "x", "x"], &["y"]),
                    vec![int_attr("num_groups", 4)],
                ),
                vec![],
                &[1, 6, 2, 2],
            ),
            "num_groups 4 does not divide the 6 channels",
        ),
        (
            graph(
                NodeProto {
                    domain: Some("com.microsoft".into()),
                    ..node("QOrderedMatMul", "q", &["x"], &["y"])
                },
                vec![],
                &[2],
            ),
            "operator `QOrderedMatMul` of domain `com.microsoft` (the importer converts Attention, BiasGelu",
        ),
    ];
    for (graph, want) in cases {
        let e = import_bytes(&model(graph, 13), &ImportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "want `{want}` in: {e}");
    }
}

/// Reflect, edge and wrap padding of an axis of symbolic extent (once unsupported) run as
/// Relax's `reflect`/`replicate`/`circular` pads; a reflect pad as long as the axis, known only at
/// run time, is an error (onnxruntime's too), not a read outside the data.
#[test]
fn pad_modes_of_a_symbolic_axis() {
    let pad_model = |mode: &str| {
        let graph = GraphProto {
            node: vec![NodeProto {
                attribute: vec![AttributeProto {
                    name: Some("mode".into()),
                    r#type: Some(attribute_type::STRING),
                    s: Some(mode.as_bytes().to_vec()),
                    ..Default::default()
                }],
                ..node("Pad", "pad", &["x", "pads"], &["y"])
            }],
            initializer: vec![i64_tensor("pads", &[4], &[0, 2, 0, 3])],
            input: vec![value_info("x", &[Ok(1), Err("n")])],
            output: vec![value_info("y", &[])],
            ..Default::default()
        };
        import_bytes(&model(graph, 13), &ImportOptions::default()).unwrap()
    };
    let x = |n: usize| -> Value {
        let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
        Tensor::from_slice(&[1, n as i64], &data).unwrap().into()
    };
    // numpy.pad([0, 1, 2, 3], (2, 3), mode) with numpy's names for the modes.
    let want: [(&str, Vec<f32>); 3] = [
        ("reflect", vec![2., 1., 0., 1., 2., 3., 2., 1., 0.]),
        ("edge", vec![0., 0., 0., 1., 2., 3., 3., 3., 3.]),
        ("wrap", vec![2., 3., 0., 1., 2., 3., 0., 1., 2.]),
    ];
    for (mode, want) in want {
        let m = pad_model(mode);
        assert_eq!(run(&m.module, vec![x(4)]), want, "{mode}");
    }
    // Extent 3: the after-pad of 3 reaches past the last element's mirror.
    let m = pad_model("reflect");
    let e = Engine::default()
        .compile(&m.module)
        .unwrap()
        .run("main", &[x(3)])
        .unwrap_err();
    assert!(e.to_string().contains("out of bounds"), "{e}");
}

/// An engine whose artifact cache is the fresh directory `dir`, in `mode`, and the warnings
/// it gave.
fn cached_engine(
    dir: &std::path::Path,
    mode: relaxjit::ExecMode,
) -> (Engine, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let warnings: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let w = warnings.clone();
    let cache =
        relaxjit::ArtifactCache::new(dir, 1 << 30).with_warn_hook(std::sync::Arc::new(move |m| {
            w.lock().unwrap().push(m.to_string())
        }));
    let engine = Engine::new(relaxjit::Config {
        cache: Some(cache),
        exec_mode: mode,
        ..relaxjit::Config::default()
    })
    .unwrap();
    (engine, warnings)
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("onnx_import_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `main` of `compiled` on `x = [[0, 0, 0]]`.
fn at_zero(compiled: &relaxjit::CompiledModule, func: &str) -> Vec<f32> {
    let x = Tensor::from_slice(&[1, 3], &[0.0f32, 0.0, 0.0]).unwrap();
    let y = compiled.run(func, &[x.into()]).unwrap();
    y.as_tensor().unwrap().to_vec().unwrap()
}

/// With a cache, a compile of ONNX bytes or a file is found again under the model's own key
/// (no import), in both exec modes; a changed byte or import option misses.
#[test]
fn onnx_models_hit_the_cache_by_their_bytes_and_options() {
    for mode in [relaxjit::ExecMode::Bytecode, relaxjit::ExecMode::Compiled] {
        let dir = scratch(&format!("alias_{mode:?}"));
        let (engine, warnings) = cached_engine(&dir.join("cache"), mode);
        let options = ImportOptions::default();
        let bytes = model(add_relu(), 13);
        let cold = engine.compile_onnx(&bytes, &options).unwrap();
        assert!(!cold.from_cache());
        let hit = engine.compile_onnx(&bytes, &options).unwrap();
        assert!(hit.from_cache(), "{mode:?}");
        assert_eq!(at_zero(&hit, "main"), [1.0, 0.0, 0.5]);
        assert_eq!(at_zero(&hit, "main"), at_zero(&cold, "main"));
        // The same model from a file: the same bytes, the same entry.
        let path = dir.join("add_relu.onnx");
        std::fs::write(&path, &bytes).unwrap();
        assert!(engine.compile_onnx(&path, &options).unwrap().from_cache());
        // Another initializer value: another model.
        let mut g = add_relu();
        g.initializer = vec![float_tensor("b", &[3], &[2.0, -1.0, 0.5])];
        let other = engine
            .compile_onnx(&model(g.clone(), 13), &options)
            .unwrap();
        assert!(!other.from_cache());
        assert_eq!(at_zero(&other, "main"), [2.0, 0.0, 0.5]);
        assert!(
            engine
                .compile_onnx(&model(g, 13), &options)
                .unwrap()
                .from_cache()
        );
        // Another function name: another module.
        let named = ImportOptions {
            func_name: "f".into(),
            ..ImportOptions::default()
        };
        let f = engine.compile_onnx(&bytes, &named).unwrap();
        assert!(!f.from_cache());
        assert_eq!(at_zero(&f, "f"), [1.0, 0.0, 0.5]);
        assert!(engine.compile_onnx(&bytes, &named).unwrap().from_cache());
        assert_eq!(*warnings.lock().unwrap(), Vec::<String>::new());
    }
}

/// A model's external-data file is part of its key: rewriting the weights misses and runs
/// with the new ones.
#[test]
fn a_changed_external_data_file_misses_the_cache() {
    let dir = scratch("external");
    let (engine, warnings) = cached_engine(&dir.join("cache"), relaxjit::ExecMode::Bytecode);
    let weights = |v: [f32; 3]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    std::fs::write(dir.join("weights.bin"), weights([1.0, -1.0, 0.5])).unwrap();
    let mut g = add_relu();
    g.initializer = vec![TensorProto {
        name: Some("b".into()),
        dims: vec![3],
        data_type: Some(1),
        data_location: Some(1),
        external_data: vec![StringStringEntryProto {
            key: Some("location".into()),
            value: Some("weights.bin".into()),
        }],
        ..Default::default()
    }];
    let path = dir.join("model.onnx");
    std::fs::write(&path, model(g, 13)).unwrap();
    let signature = relaxjit_onnx::signature(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(signature.external_data, ["weights.bin"]);
    let options = ImportOptions::default();
    let first = engine.compile_onnx(&path, &options).unwrap();
    assert!(!first.from_cache());
    assert_eq!(at_zero(&first, "main"), [1.0, 0.0, 0.5]);
    assert!(engine.compile_onnx(&path, &options).unwrap().from_cache());
    std::fs::write(dir.join("weights.bin"), weights([3.0, -1.0, 0.25])).unwrap();
    let changed = engine.compile_onnx(&path, &options).unwrap();
    assert!(!changed.from_cache());
    assert_eq!(at_zero(&changed, "main"), [3.0, 0.0, 0.25]);
    // A missing file is the import's error, as without a cache.
    std::fs::remove_file(dir.join("weights.bin")).unwrap();
    let e = engine
        .compile_onnx(&path, &options)
        .unwrap_err()
        .to_string();
    assert!(e.contains("weights.bin"), "{e}");
    assert_eq!(*warnings.lock().unwrap(), Vec::<String>::new());
}

/// The signature types the graph inputs as the import does, without converting the nodes.
#[test]
fn the_signature_is_the_imported_functions_parameters() {
    let bytes = model(add_relu(), 13);
    let signature = relaxjit_onnx::signature(&bytes).unwrap();
    let imported = import_bytes(&bytes, &ImportOptions::default()).unwrap();
    let func = imported.module.relax_function("main").unwrap();
    assert_eq!(signature.inputs, imported.inputs);
    assert_eq!(signature.params.len(), func.params.len());
    // Each import makes its own symbolic dimensions: compared by name (`N#1` as `N`).
    let unnumbered = |si: &relaxjit::relax::ir::StructInfo| -> String {
        let text = format!("{si:?}");
        let mut out = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '#' {
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                }
            } else {
                out.push(c);
            }
        }
        out
    };
    for (a, b) in signature.params.iter().zip(&func.params) {
        assert_eq!(a.name(), b.name());
        assert_eq!(unnumbered(a.struct_info()), unnumbered(b.struct_info()));
    }
    assert!(signature.external_data.is_empty());
    // An unsupported operator does not matter to the signature; an undecodable model does.
    let mut g = add_relu();
    g.node[1] = node("MaxRoiPool", "pool_1", &["s"], &["y"]);
    assert_eq!(
        relaxjit_onnx::signature(&model(g, 13))
            .unwrap()
            .params
            .len(),
        1
    );
    let e = relaxjit_onnx::signature(b"\xff\xff\xff")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("cannot decode ModelProto"), "{e}");
}
