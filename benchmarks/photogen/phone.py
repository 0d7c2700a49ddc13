"""What a phone does to the light that reaches its sensor: exposure, lens blur and vignetting, a Bayer
mosaic with shot and read noise, demosaicing, white balance, a tone curve, chroma denoising,
sharpening and a 4:2:0 JPEG."""

from __future__ import annotations

import io
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image


@dataclass(frozen=True)
class PhoneParams:
    exposure_ev: float = 0.0
    """Offset from the auto-exposure, stops."""
    blur_px: float = 0.7
    """Lens and anti-aliasing blur, Gaussian sigma in pixels."""
    vignetting: float = 0.2
    shot_noise: float = 0.0008
    """Variance of the noise per unit signal (linear, 1 = clipping)."""
    read_noise: float = 0.003
    white_balance_error: float = 0.03
    saturation: float = 1.15
    contrast: float = 0.15
    sharpen: float = 0.6
    sharpen_px: float = 1.2
    jpeg_quality: int = 90


def develop(radiance: np.ndarray, params: PhoneParams, rng: np.random.Generator, lamp_rgb: np.ndarray,
            meter_mask: np.ndarray | None = None) -> tuple[np.ndarray, bytes]:
    """Linear RGB radiance (h, w, 3) to a JPEG: the decoded BGR image and the file's bytes."""
    h, w = radiance.shape[:2]
    img = radiance
    # Auto-exposure: the metered region's bright end lands at 80 % of full scale.
    lum = img[..., 1] if meter_mask is None else img[..., 1][meter_mask]
    level = float(np.percentile(lum[:: max(1, lum.size // 200_000)], 97)) if lum.size else 1.0
    img = img * (0.8 / max(level, 1e-6) * 2.0 ** params.exposure_ev)
    yy, xx = np.ogrid[:h, :w]
    r2 = ((xx - w / 2) / (w / 2)) ** 2 * 0.64 + ((yy - h / 2) / (h / 2)) ** 2 * 0.36
    img *= (1.0 - params.vignetting * r2).astype(np.float32)[..., None]
    img = cv2.GaussianBlur(img, (0, 0), params.blur_px)
    # The sensor sees the scene through a Bayer filter (R G / G B), one colour per pixel.
    mosaic = np.empty((h, w), np.float32)
    mosaic[0::2, 0::2] = img[0::2, 0::2, 0]
    mosaic[0::2, 1::2] = img[0::2, 1::2, 1]
    mosaic[1::2, 0::2] = img[1::2, 0::2, 1]
    mosaic[1::2, 1::2] = img[1::2, 1::2, 2]
    np.clip(mosaic, 0.0, 1.0, out=mosaic)
    sigma = np.sqrt(params.shot_noise * mosaic + params.read_noise ** 2)
    mosaic += sigma * rng.standard_normal((h, w), dtype=np.float32)
    raw = np.clip(mosaic * 4095.0, 0, 4095).astype(np.uint16)
    # OpenCV names Bayer patterns by the second row's second and third pixels: R G / G B is "BG".
    rgb = cv2.cvtColor(raw, cv2.COLOR_BayerBG2RGB_EA).astype(np.float32) * (1.0 / 4095.0)
    gains = (1.0 / np.maximum(lamp_rgb, 1e-3)) * lamp_rgb[1] * (1.0 + params.white_balance_error * rng.standard_normal(3))
    rgb *= gains.astype(np.float32)
    grey = rgb.mean(axis=2, keepdims=True)
    rgb = grey + params.saturation * (rgb - grey)
    # Tone curve (sRGB with a gentle S-curve) through a 16-bit table, as a phone's ISP does.
    idx = np.clip(rgb[..., ::-1] * 65535.0 + 0.5, 0, 65535).astype(np.uint16)
    bgr8 = _tone_table(params.contrast)[idx]
    # Phones smooth colour noise hard and luminance noise lightly, then sharpen.
    ycc = cv2.cvtColor(bgr8, cv2.COLOR_BGR2YCrCb)
    ycc[..., 1] = cv2.GaussianBlur(ycc[..., 1], (0, 0), 1.5)
    ycc[..., 2] = cv2.GaussianBlur(ycc[..., 2], (0, 0), 1.5)
    y = ycc[..., 0].astype(np.float32)
    y = y + params.sharpen * (y - cv2.GaussianBlur(y, (0, 0), params.sharpen_px))
    ycc[..., 0] = np.clip(y, 0, 255).astype(np.uint8)
    bgr8 = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR)
    buf = io.BytesIO()
    Image.fromarray(bgr8[..., ::-1]).save(buf, format="JPEG", quality=int(params.jpeg_quality), subsampling=2, optimize=False)
    data = buf.getvalue()
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    return decoded, data


def _tone_table(contrast: float) -> np.ndarray:
    x = np.linspace(0.0, 1.0, 65536)
    s = np.where(x <= 0.0031308, x * 12.92, 1.055 * np.power(x, 1 / 2.4) - 0.055)
    s = s + contrast * (s - 0.5) * s * (1 - s) * 4
    return np.clip(s * 255.0 + 0.5, 0, 255).astype(np.uint8)
