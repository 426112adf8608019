"""The onnxruntime examples from the execution-provider guide, unchanged except
for the import. Providers this build lacks are skipped with a warning (as
onnxruntime does on a machine without them), so every example runs on the CPU;
the model is a Relu over float[N,3,224,224] saved as model.onnx in the cwd."""

import numpy as np
import pytest

import tessera as ort

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@pytest.fixture(autouse=True)
def in_model_dir(relu_model, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def check(session):
    x = np.random.randn(1, 3, 224, 224).astype(np.float32)
    np.testing.assert_array_equal(session.run(None, {"input": x})[0], np.maximum(x, 0))
    assert "CPUExecutionProvider" in session.get_providers()


def test_cpu_provider_example():
    # CPU is used by default
    session = ort.InferenceSession("model.onnx")
    check(session)

    # Explicit configuration
    sess_options = ort.SessionOptions()
    sess_options.intra_op_num_threads = 4
    session = ort.InferenceSession(
        "model.onnx",
        sess_options,
        providers=['CPUExecutionProvider']
    )
    check(session)


def test_cuda_provider_example():
    # Use CUDA with default settings
    session = ort.InferenceSession(
        "model.onnx",
        providers=['CUDAExecutionProvider', 'CPUExecutionProvider']
    )
    check(session)

    # Configure CUDA options
    cuda_options = {
        'device_id': 0,
        'arena_extend_strategy': 'kNextPowerOfTwo',
        'gpu_mem_limit': 2 * 1024 * 1024 * 1024,  # 2GB
        'cudnn_conv_algo_search': 'EXHAUSTIVE',
        'do_copy_in_default_stream': True,
    }

    session = ort.InferenceSession(
        "model.onnx",
        providers=[('CUDAExecutionProvider', cuda_options),
                   'CPUExecutionProvider']
    )
    check(session)


def test_tensorrt_provider_example():
    trt_options = {
        'device_id': 0,
        'trt_max_workspace_size': 2 * 1024 * 1024 * 1024,  # 2GB
        'trt_fp16_enable': True,  # Enable FP16 precision
        'trt_int8_enable': False,
        'trt_engine_cache_enable': True,
        'trt_engine_cache_path': './trt_cache',
    }

    session = ort.InferenceSession(
        "model.onnx",
        providers=[('TensorrtExecutionProvider', trt_options),
                   'CUDAExecutionProvider',
                   'CPUExecutionProvider']
    )
    check(session)


def test_directml_and_coreml_examples():
    session = ort.InferenceSession(
        "model.onnx",
        providers=['DmlExecutionProvider', 'CPUExecutionProvider']
    )
    check(session)

    coreml_options = {
        'MLComputeUnits': 'ALL',  # CPU_AND_GPU, CPU_ONLY, or ALL
    }

    session = ort.InferenceSession(
        "model.onnx",
        providers=[('CoreMLExecutionProvider', coreml_options),
                   'CPUExecutionProvider']
    )
    check(session)


def test_additional_provider_examples():
    openvino_options = {
        'device_type': 'CPU_FP32',  # CPU_FP32, GPU_FP32, GPU_FP16, etc.
        'num_of_threads': 8,
    }
    session = ort.InferenceSession(
        "model.onnx",
        providers=[('OpenVINOExecutionProvider', openvino_options)]
    )
    check(session)
    session = ort.InferenceSession(
        "model.onnx",
        providers=['NnapiExecutionProvider', 'CPUExecutionProvider']
    )
    check(session)
    session = ort.InferenceSession(
        "model.onnx",
        providers=['AclExecutionProvider', 'CPUExecutionProvider']
    )
    check(session)
    rocm_options = {
        'device_id': 0,
        'gpu_mem_limit': 2 * 1024 * 1024 * 1024,
    }
    session = ort.InferenceSession(
        "model.onnx",
        providers=[('ROCMExecutionProvider', rocm_options)]
    )
    check(session)


def test_provider_priority_example():
    # TensorRT tried first, then CUDA, then CPU
    session = ort.InferenceSession(
        "model.onnx",
        providers=[
            'TensorrtExecutionProvider',
            'CUDAExecutionProvider',
            'CPUExecutionProvider'
        ]
    )
    check(session)


def test_checking_active_providers_example(capsys):
    # Check available providers
    print("Available providers:", ort.get_available_providers())

    # Check session providers
    session = ort.InferenceSession("model.onnx")
    print("Session providers:", session.get_providers())
    out = capsys.readouterr().out
    assert "Available providers: ['CPUExecutionProvider'" in out
    assert "Session providers: ['CPUExecutionProvider']" in out


def test_verbose_logging_example():
    sess_options = ort.SessionOptions()
    sess_options.log_severity_level = 0  # Verbose
    session = ort.InferenceSession("model.onnx", sess_options)
    ort.set_default_logger_severity(2)
    check(session)


def test_iobinding_example():
    session = ort.InferenceSession("model.onnx", providers=['CUDAExecutionProvider'])

    # Create IOBinding
    io_binding = session.io_binding()

    # Bind input to GPU
    input_data = np.random.randn(1, 3, 224, 224).astype(np.float32)
    io_binding.bind_cpu_input('input', input_data)

    # Bind output to GPU
    io_binding.bind_output('output', 'cuda')

    # Run on GPU
    session.run_with_iobinding(io_binding)

    # Get output (still on GPU)
    output = io_binding.copy_outputs_to_cpu()[0]
    np.testing.assert_array_equal(output, np.maximum(input_data, 0))


def test_warmup_example():
    session = ort.InferenceSession("model.onnx")
    dummy_input = np.random.randn(1, 3, 224, 224).astype(np.float32)
    # Warmup
    for _ in range(10):
        session.run(None, {"input": dummy_input})


def test_provider_not_available_example(capsys):
    if 'CUDAExecutionProvider' not in ort.get_available_providers():
        print("CUDA provider not available")
        print("Available:", ort.get_available_providers())
        # Fallback to CPU
    if 'CUDAExecutionProvider' not in ort.get_available_providers():
        assert "CUDA provider not available" in capsys.readouterr().out
