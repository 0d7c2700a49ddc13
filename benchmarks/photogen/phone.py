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
    # Every step below works in place on as few full-frame arrays as it can: a 12 MP frame is 145 MB of float32 RGB,
    # and each temporary costs as much in page faults as in arithmetic. Each in-place form computes the same float32
    # operations, in the same order, as the plain expression in its comment (the photos are bit-identical).
    # Auto-exposure: the metered region's bright end lands at 80 % of full scale.
    # The percentile of every k-th metered pixel's green (k keeps about 200 000): only those are gathered.
    if meter_mask is None:
        lum = radiance[..., 1]
        lum = lum[:: max(1, lum.size // 200_000)]  # every k-th row (of a 2-D array), as it always was
    else:
        metered = np.flatnonzero(meter_mask)
        lum = radiance.reshape(-1, 3)[metered[:: max(1, metered.size // 200_000)], 1]
    level = float(np.percentile(lum, 97)) if lum.size else 1.0
    img = _expose(radiance, 0.8 / max(level, 1e-6) * 2.0 ** params.exposure_ev, params.vignetting)
    img = cv2.GaussianBlur(img, (0, 0), params.blur_px)
    # The sensor sees the scene through a Bayer filter (R G / G B), one colour per pixel.
    mosaic = np.empty((h, w), np.float32)
    mosaic[0::2, 0::2] = img[0::2, 0::2, 0]
    mosaic[0::2, 1::2] = img[0::2, 1::2, 1]
    mosaic[1::2, 0::2] = img[1::2, 0::2, 1]
    mosaic[1::2, 1::2] = img[1::2, 1::2, 2]
    del img
    normal = rng.standard_normal((h, w), dtype=np.float32)
    raw = np.empty((h, w), np.uint16)
    for r0 in range(0, h, TONE_ROWS):
        r1 = min(h, r0 + TONE_ROWS)
        raw[r0:r1] = _sensor(mosaic[r0:r1], normal[r0:r1], params)
    del mosaic, normal
    # OpenCV names Bayer patterns by the second row's second and third pixels: R G / G B is "BG".
    demosaiced = cv2.cvtColor(raw, cv2.COLOR_BayerBG2RGB_EA)
    del raw
    gains = (1.0 / np.maximum(lamp_rgb, 1e-3)) * lamp_rgb[1] * (1.0 + params.white_balance_error * rng.standard_normal(3))
    table = _tone_table(params.contrast)
    gains32 = gains.astype(np.float32)
    rgb8 = np.empty((h, w, 3), np.uint8)
    # White balance, saturation and the tone curve touch each pixel alone: a band of rows at a time, so each band's
    # dozen passes stay in the cache instead of streaming the 145 MB frame through memory a dozen times.
    for r0 in range(0, h, TONE_ROWS):
        r1 = min(h, r0 + TONE_ROWS)
        rgb8[r0:r1] = _white_balance_and_tone(demosaiced[r0:r1], gains32, params.saturation, table)
    del demosaiced
    # Phones smooth colour noise hard and luminance noise lightly, then sharpen.
    ycc = cv2.cvtColor(rgb8, cv2.COLOR_RGB2YCrCb)
    ycc[..., 1] = cv2.GaussianBlur(ycc[..., 1], (0, 0), 1.5)
    ycc[..., 2] = cv2.GaussianBlur(ycc[..., 2], (0, 0), 1.5)
    y = ycc[..., 0].astype(np.float32)
    # y = y + sharpen * (y - blur(y)), clipped to 0..255
    detail = cv2.GaussianBlur(y, (0, 0), params.sharpen_px)
    np.subtract(y, detail, out=detail)
    detail *= params.sharpen
    y += detail
    np.clip(y, 0, 255, out=y)
    ycc[..., 0] = y.astype(np.uint8)
    rgb8 = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)
    buf = io.BytesIO()
    Image.fromarray(rgb8).save(buf, format="JPEG", quality=int(params.jpeg_quality), subsampling=2, optimize=False)
    data = buf.getvalue()
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    return decoded, data


TONE_ROWS = 32
"""Rows of the frame white-balanced and toned at a time (about 1.5 MB of float32 on a 12 MP frame)."""


def _sensor(mosaic: np.ndarray, normal: np.ndarray, params: PhoneParams) -> np.ndarray:
    """Light on the sensor's pixels (clipped to full scale) with shot and read noise (``normal``: N(0, 1) per pixel),
    read out as 12-bit raw values."""
    np.clip(mosaic, 0.0, 1.0, out=mosaic)
    # sigma = sqrt(shot_noise * mosaic + read_noise ** 2); mosaic += sigma * N(0, 1)
    noise = np.multiply(mosaic, params.shot_noise)
    noise += params.read_noise ** 2
    np.sqrt(noise, out=noise)
    noise *= normal
    mosaic += noise
    # raw = clip(mosaic * 4095, 0, 4095) as uint16
    mosaic *= 4095.0
    np.clip(mosaic, 0, 4095, out=mosaic)
    return mosaic.astype(np.uint16)


def _white_balance_and_tone(raw_rgb: np.ndarray, gains: np.ndarray, saturation: float, table: np.ndarray) -> np.ndarray:
    """12-bit demosaiced RGB (rows, w, 3) to 8-bit toned RGB. Each in-place step computes the float32 operations of the
    plain expression in its comment, in the same order."""
    rgb = raw_rgb.astype(np.float32)
    rgb *= 1.0 / 4095.0
    rgb *= gains
    # grey = rgb.mean(axis=2): numpy sums the three channels left to right, then divides by 3.
    grey = rgb[..., 0] + rgb[..., 1]
    grey += rgb[..., 2]
    grey /= 3
    grey = grey[..., None]
    # rgb = grey + saturation * (rgb - grey)
    rgb -= grey
    rgb *= saturation
    rgb += grey
    # Tone curve (sRGB with a gentle S-curve) through a 16-bit table, as a phone's ISP does:
    # the table at clip(rgb * 65535 + 0.5, 0, 65535) as uint16. Kept in RGB order (the JPEG's).
    rgb *= 65535.0
    rgb += 0.5
    np.clip(rgb, 0, 65535, out=rgb)
    return table[rgb.astype(np.uint16)]


VIGNETTE_ROWS = 64
"""Rows exposed and vignetted at a time (the factor in float64, as it always was: a band stays in the cache)."""


def _expose(radiance: np.ndarray, scale: float, vignetting: float) -> np.ndarray:
    """``radiance * scale``, darkened towards the corners: times 1 - vignetting * r^2 (r^2 in float64, the factor
    float32), a band of rows at a time."""
    h, w = radiance.shape[:2]
    img = np.empty_like(radiance)
    yy, xx = np.ogrid[:h, :w]
    across = ((xx - w / 2) / (w / 2)) ** 2 * 0.64
    down = ((yy - h / 2) / (h / 2)) ** 2 * 0.36
    for r0 in range(0, h, VIGNETTE_ROWS):
        r1 = min(h, r0 + VIGNETTE_ROWS)
        band = img[r0:r1]
        np.multiply(radiance[r0:r1], scale, out=band)
        r2 = across + down[r0:r1]
        r2 *= vignetting
        np.subtract(1.0, r2, out=r2)
        band *= r2.astype(np.float32)[..., None]
    return img


def _tone_table(contrast: float) -> np.ndarray:
    x = np.linspace(0.0, 1.0, 65536)
    s = np.where(x <= 0.0031308, x * 12.92, 1.055 * np.power(x, 1 / 2.4) - 0.055)
    s = s + contrast * (s - 0.5) * s * (1 - s) * 4
    return np.clip(s * 255.0 + 0.5, 0, 255).astype(np.uint8)
